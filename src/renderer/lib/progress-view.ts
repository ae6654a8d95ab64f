import type { EventPayload } from '../../shared/api';
import type { SweepRecord, SweepStatus } from '../../shared/records';

export interface ProgressView {
  /** 0..1: work done over work planned. */
  fraction: number;
  runsDone: number;
  runCount: number | null;
  status: SweepStatus;
  /** e.g. "12 of 12 runs done", "cancelled after 3 of 12 runs". */
  text: string;
}

/**
 * What the console's progress line says, from the stored sweep and the latest live progress event. A running sweep
 * shows the engine's fraction (never decreasing); an ended one shows what was done: 100 % only when it completed,
 * otherwise the share of runs that ran, and says that it was cancelled, failed or interrupted.
 */
export function progressView(sweep: Pick<SweepRecord, 'status' | 'run_count' | 'runs_done'> | null, progress: EventPayload<'sweep.progress'> | null, ended: SweepStatus | null, floor = 0): ProgressView {
  const status: SweepStatus = ended ?? sweep?.status ?? 'running';
  const runCount = progress?.run_count ?? sweep?.run_count ?? null;
  const runsDone = Math.max(progress?.runs_done ?? 0, sweep?.runs_done ?? 0);
  const share = runCount ? Math.min(1, runsDone / runCount) : 0;
  const of = `${runsDone} of ${runCount ?? '?'} runs`;
  if (status === 'running') {
    const fraction = Math.max(floor, progress?.fraction ?? share);
    return { fraction, runsDone, runCount, status, text: `${of} done` };
  }
  if (status === 'done') return { fraction: 1, runsDone, runCount, status, text: `${of} done` };
  return { fraction: share, runsDone, runCount, status, text: `${status} after ${of}` };
}
