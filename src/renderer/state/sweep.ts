import { create } from 'zustand';
import type { EventPayload } from '../../shared/api';
import type { RunRecord, SweepRecord } from '../../shared/records';
import { api, isNotFound } from '../api/client';
import { replaySweep } from './console-replay';

type Progress = EventPayload<'sweep.progress'>;
type Finished = EventPayload<'sweep.finished'>;

interface SweepState {
  /** The sweep the console follows: the running one, else the last one started here. */
  activeId: number | null;
  sweep: SweepRecord | null;
  simulated: boolean;
  progress: Progress | null;
  /** The highest fraction seen for this sweep: the bar never moves back if events arrive out of order. */
  maxFraction: number;
  finished: Finished | null;
  runs: RunRecord[];
  cancelling: boolean;
  /** Follows sweep `id`; false when the engine says it is not stored (then nothing is followed). */
  follow(id: number): Promise<boolean>;
  /** Finds a running sweep (after a reload) and follows it. */
  discover(): Promise<void>;
  onStarted(p: EventPayload<'sweep.started'>): void;
  onProgress(p: Progress): void;
  onRunFinished(p: EventPayload<'run.finished'>): void;
  onFinished(p: Finished): void;
  cancel(): Promise<boolean>;
}

export const useSweep = create<SweepState>()((set, get) => ({
  activeId: null,
  sweep: null,
  simulated: false,
  progress: null,
  maxFraction: 0,
  finished: null,
  runs: [],
  cancelling: false,
  async follow(id) {
    if (get().activeId !== id) set({ activeId: id, sweep: null, progress: null, maxFraction: 0, finished: null, runs: [], cancelling: false });
    try {
      const r = await api.getSweep({ sweep_id: id });
      if (get().activeId !== id) return true;
      set({ sweep: r.sweep, simulated: r.sweep.simulated, runs: r.runs.filter((x) => x.status !== 'pending' && x.status !== 'running') });
      // The console shows what was recorded before this page followed the sweep (a reload, a finished sweep).
      void replaySweep(id, r.runs, api.getRunTraces);
    } catch (e) {
      if (isNotFound(e) && get().activeId === id) {
        set({ activeId: null });
        return false;
      }
      /* a failed read: events fill in */
    }
    return true;
  },
  async discover() {
    try {
      const list = await api.listSweeps({});
      const running = list.find((s) => s.status === 'running');
      if (running) await get().follow(running.id);
      else if (get().activeId === null && list.length) await get().follow(list.reduce((a, b) => (b.id > a.id ? b : a)).id);
    } catch {
      /* offline: the connection banner says so */
    }
  },
  onStarted(p) {
    set({ activeId: p.sweep_id, sweep: null, simulated: p.simulated, progress: null, maxFraction: 0, finished: null, runs: [], cancelling: false });
    void get().follow(p.sweep_id);
  },
  onProgress(p) {
    if (get().activeId !== p.sweep_id) {
      set({ activeId: p.sweep_id, sweep: null, maxFraction: 0, finished: null, runs: [] });
      void get().follow(p.sweep_id);
    }
    set({ progress: p, maxFraction: Math.max(get().maxFraction, p.fraction) });
  },
  onRunFinished(p) {
    if (p.sweep_id !== get().activeId) return;
    set({ runs: [...get().runs.filter((r) => r.id !== p.run.id), p.run] });
  },
  onFinished(p) {
    if (p.sweep_id !== get().activeId) return;
    set({ finished: p, cancelling: false });
    void get().follow(p.sweep_id);
  },
  async cancel() {
    const id = get().activeId;
    if (id === null) return false;
    set({ cancelling: true });
    try {
      const r = await api.cancelSweep({ sweep_id: id });
      if (!r.cancelled) set({ cancelling: false });
      return r.cancelled;
    } catch (e) {
      set({ cancelling: false });
      throw e;
    }
  },
}));

export function isRunning(s: Pick<SweepState, 'activeId' | 'finished' | 'sweep' | 'progress'>): boolean {
  if (s.activeId === null || s.finished) return false;
  if (s.progress) return true;
  return s.sweep?.status === 'running';
}
