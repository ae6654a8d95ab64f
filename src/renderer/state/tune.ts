import { create } from 'zustand';
import type { TuneStatus } from '../../shared/tune';
import { api } from '../api/client';

interface TuneState {
  /** The latest `tune.status` of the session the console follows (null: no tuning session seen in this window). */
  status: TuneStatus | null;
  onStatus(s: TuneStatus): void;
  /**
   * The stored outcome of an ended session (the console opened after its end gets no live events); kept only if no
   * live status of that session came meanwhile. A sweep has none: nothing changes.
   */
  loadStored(sweepId: number): Promise<void>;
}

export const useTune = create<TuneState>()((set, get) => ({
  status: null,
  onStatus: (status) => set({ status }),
  async loadStored(sweepId) {
    const stored = await api.getTuneStatus({ sweep_id: sweepId });
    if (stored && get().status?.sweep_id !== sweepId) set({ status: stored });
  },
}));
