import { create } from 'zustand';
import { persist } from 'zustand/middleware';

/** Newcomer-facing preferences, kept in this browser/profile: protocol lines, end-of-sweep notifications, hints. */
export interface PrefsState {
  /** The workload terminal shows CapLab protocol lines (dimmed) instead of hiding them. */
  showProtocol: boolean;
  /** A desktop/browser notification when a sweep ends or fails (opt-in; the permission is asked when turned on). */
  notifyOnEnd: boolean;
  /** Pages whose getting-started hint was dismissed. */
  dismissedHints: string[];
  set(patch: Partial<Pick<PrefsState, 'showProtocol' | 'notifyOnEnd'>>): void;
  dismissHint(page: string): void;
  resetHints(): void;
}

export const usePrefs = create<PrefsState>()(
  persist(
    (set, get) => ({
      showProtocol: false,
      notifyOnEnd: false,
      dismissedHints: [],
      set: (patch) => set(patch),
      dismissHint: (page) => set({ dismissedHints: [...new Set([...get().dismissedHints, page])] }),
      resetHints: () => set({ dismissedHints: [] }),
    }),
    { name: 'caplab.prefs', version: 1 },
  ),
);
