import { create } from 'zustand';
import type { TuneStatus } from '../../shared/tune';

interface TuneState {
  /** The latest `tune.status` of the session the console follows (null: no tuning session seen in this window). */
  status: TuneStatus | null;
  onStatus(s: TuneStatus): void;
}

export const useTune = create<TuneState>()((set) => ({
  status: null,
  onStatus: (status) => set({ status }),
}));
