import type { Db } from '../store/db';
import { analyzeStoredSweep } from './analyze-stored';
import { getSweep } from '../store/sweeps';
import type { SweepBestCaps } from '../../../shared/api/analysis';

/**
 * Each sweep's best cap under the default analysis options (the History page's column): the same analysis as
 * `caplab analyze ID`, kept per sweep until its runs, status or end change, so that a list of many sweeps is
 * analysed once and a finished sweep never again.
 */
export class BestCapCache {
  private memo = new Map<number, { key: string; value: SweepBestCaps }>();

  of(db: Db, sweepId: number): SweepBestCaps {
    const sweep = getSweep(db, sweepId);
    if (!sweep) return { sweep_id: sweepId, selector: 'max-efficiency', groups: [], error: `no sweep ${sweepId}` };
    const key = `${sweep.status}|${sweep.runs_done}|${sweep.finished_at ?? ''}`;
    const hit = this.memo.get(sweepId);
    if (hit?.key === key) return hit.value;
    const value = bestCapsOf(db, sweepId, sweep.runs_done);
    this.memo.set(sweepId, { key, value });
    return value;
  }
}

function bestCapsOf(db: Db, sweepId: number, runsDone: number): SweepBestCaps {
  if (runsDone === 0) return { sweep_id: sweepId, selector: 'max-efficiency', groups: [], error: null };
  try {
    const { result } = analyzeStoredSweep(db, sweepId, { overhead_w: null });
    return {
      sweep_id: sweepId,
      selector: result.options.selector,
      groups: result.groups.map((g) => ({
        workload: g.workload,
        device_model: g.device_model,
        cap_w: g.best.cap_w,
        no_answer_reason: g.best.cap_w === null ? (g.best.no_answer_reason ?? g.best.note ?? 'no best cap') : null,
      })),
      error: null,
    };
  } catch (e) {
    return { sweep_id: sweepId, selector: 'max-efficiency', groups: [], error: (e as Error).message };
  }
}
