import type { Db } from '../store/db';
import { SampleWriter, streamFor } from '../store/sample-blocks';
import type { Sample } from '../../../shared/sample';

/**
 * Buffers a sweep's samples and writes them in one transaction per flush (the sweep flushes every 250 ms, so a
 * killed process loses at most that much). Samples go to the sweep's stream of their device; live listeners get them
 * tagged with the run that was active when they were read, not when they are written.
 */
export class SampleRecorder {
  /** The run whose samples are being read now; null between runs. */
  runId: number | null = null;
  private buffer: { runId: number | null; sample: Sample }[] = [];
  private readonly writer: SampleWriter;
  private readonly streams = new Map<string, number>();

  constructor(
    db: Db,
    sweepId: number,
    /** Sample.device_id (backend key) -> devices.id. */
    deviceIds: ReadonlyMap<string, number>,
    private readonly onWritten: (runId: number | null, samples: Sample[]) => void,
  ) {
    this.writer = new SampleWriter(db);
    for (const [key, row] of deviceIds) this.streams.set(key, streamFor(db, { sweep_id: sweepId }, row));
  }

  /** Duplicates dropped at the source (same device, sensor kind and time as the reading before). */
  duplicates = 0;
  /** The last reading per device and kind, and where it sits in the buffer (-1 once flushed). */
  private readonly last = new Map<string, { t: number; at: number }>();

  /** Samples read after the store failed, not written (see discard). */
  discarded = 0;
  private closed = false;

  /**
   * After a write error (a full disk): buffered and later samples are dropped, not written, so that what space is
   * left goes to the sweep's failure record and the journal close.
   */
  discard(): void {
    this.closed = true;
    this.discarded += this.buffer.length;
    this.buffer = [];
    for (const v of this.last.values()) v.at = -1;
  }

  collect(samples: readonly Sample[]): void {
    if (this.closed) {
      this.discarded += samples.length;
      return;
    }
    for (const sample of samples) {
      const key = `${sample.device_id}|${sample.power_kind}`;
      const prev = this.last.get(key);
      if (prev?.t === sample.t) {
        this.duplicates++;
        // Of two rows at one time, the one read later is the fresh one (a counter read again at a window edge):
        // it replaces the stale one while that is still buffered.
        if (prev.at >= 0) this.buffer[prev.at] = { runId: this.buffer[prev.at]!.runId, sample };
        continue;
      }
      this.last.set(key, { t: sample.t, at: this.buffer.length });
      this.buffer.push({ runId: this.runId, sample });
    }
  }

  flush(): void {
    if (this.closed || this.buffer.length === 0) return;
    const byStream = new Map<number, Sample[]>();
    for (const { sample } of this.buffer) {
      const stream = this.streams.get(sample.device_id);
      if (stream === undefined) continue;
      const list = byStream.get(stream);
      if (list) list.push(sample);
      else byStream.set(stream, [sample]);
    }
    const byRun = new Map<number | null, Sample[]>();
    for (const { runId, sample } of this.buffer) {
      const list = byRun.get(runId);
      if (list) list.push(sample);
      else byRun.set(runId, [sample]);
    }
    this.buffer = [];
    for (const v of this.last.values()) v.at = -1;
    for (const [stream, samples] of byStream) this.writer.appendRows(stream, samples);
    this.writer.flush();
    for (const [runId, samples] of byRun) this.onWritten(runId, samples);
  }
}
