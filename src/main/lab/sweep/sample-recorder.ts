import type { Db } from '../store/db';
import { insertSamples } from '../store/samples';
import type { Sample } from '../../../shared/device';

/**
 * Buffers a sweep's samples and writes them in one transaction per flush (the sweep flushes every 250 ms, so a
 * killed process loses at most that much). Each sample is tagged with the run that was active when it was read,
 * not when it is written, so a run's window keeps its last readings.
 */
export class SampleRecorder {
  /** The run whose samples are being read now; null between runs. */
  runId: number | null = null;
  private buffer: { runId: number | null; sample: Sample }[] = [];

  constructor(
    private readonly db: Db,
    private readonly sweepId: number,
    /** Sample.device_id (backend key) -> devices.id. */
    private readonly deviceIds: ReadonlyMap<string, number>,
    private readonly onWritten: (runId: number | null, samples: Sample[]) => void,
  ) {}

  collect(samples: readonly Sample[]): void {
    for (const sample of samples) this.buffer.push({ runId: this.runId, sample });
  }

  flush(): void {
    if (this.buffer.length === 0) return;
    const byRun = new Map<number | null, Sample[]>();
    for (const { runId, sample } of this.buffer) {
      const list = byRun.get(runId);
      if (list) list.push(sample);
      else byRun.set(runId, [sample]);
    }
    this.buffer = [];
    for (const [runId, samples] of byRun) {
      insertSamples(this.db, { sweepId: this.sweepId, runId }, this.deviceIds, samples);
      this.onWritten(runId, samples);
    }
  }
}
