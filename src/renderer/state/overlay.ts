import { create } from 'zustand';
import { MAX_OVERLAY_SOURCES, type OverlayRef } from '../../shared/overlay';

interface OverlayPicks {
  /** Runs and segments picked for the Overlay page, in the order picked; kept across sweeps and pages. */
  picked: OverlayRef[];
  toggle(ref: OverlayRef): void;
  set(refs: OverlayRef[]): void;
  clear(): void;
}

const same = (a: OverlayRef, b: OverlayRef) => a.kind === b.kind && a.id === b.id;

export const useOverlayPicks = create<OverlayPicks>()((set, get) => ({
  picked: [],
  toggle(ref) {
    const now = get().picked;
    if (now.some((r) => same(r, ref))) set({ picked: now.filter((r) => !same(r, ref)) });
    // The engine takes at most MAX_OVERLAY_SOURCES at once: a pick past that is refused here, not there.
    else if (now.length < MAX_OVERLAY_SOURCES) set({ picked: [...now, ref] });
  },
  set(refs) {
    set({ picked: refs.slice(0, MAX_OVERLAY_SOURCES) });
  },
  clear() {
    set({ picked: [] });
  },
}));

export function isPicked(picked: readonly OverlayRef[], ref: OverlayRef): boolean {
  return picked.some((r) => same(r, ref));
}
