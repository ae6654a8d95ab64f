import { create } from 'zustand';
import type { SweepRecord } from '../../shared/records';
import { api } from '../api/client';

interface HistoryState {
  sweeps: SweepRecord[];
  search: string;
  loading: boolean;
  error: string | null;
  setSearch(s: string): void;
  load(): Promise<void>;
  remove(id: number): Promise<boolean>;
  /** Saves tags and/or notes of a sweep and puts the stored record in the list. */
  annotate(id: number, patch: { tags?: string[]; notes?: string }): Promise<void>;
}

/** The sweeps a comparison asked for on the History page compares with, taken once by the Results page it opens. */
let pendingCompare: string[] = [];
export function askCompare(withIds: readonly number[]): void {
  pendingCompare = withIds.map(String);
}
export function takePendingCompare(): string[] {
  const v = pendingCompare;
  pendingCompare = [];
  return v;
}

export const useHistory = create<HistoryState>()((set, get) => ({
  sweeps: [],
  search: '',
  loading: false,
  error: null,
  setSearch(search) {
    set({ search });
    void get().load();
  },
  async load() {
    set({ loading: true });
    const search = get().search.trim();
    try {
      const sweeps = await api.listSweeps(search ? { search } : {});
      if (get().search.trim() === search) set({ sweeps: [...sweeps].sort((a, b) => b.id - a.id), error: null, loading: false });
    } catch (e) {
      set({ error: (e as Error).message, loading: false });
    }
  },
  async remove(id) {
    const r = await api.deleteSweep({ sweep_id: id });
    if (r.deleted) set({ sweeps: get().sweeps.filter((s) => s.id !== id) });
    return r.deleted;
  },
  async annotate(id, patch) {
    const rec = await api.setSweepNotes({ sweep_id: id, ...patch });
    set({ sweeps: get().sweeps.map((s) => (s.id === id ? rec : s)) });
  },
}));
