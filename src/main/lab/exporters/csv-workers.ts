// Worker threads for the samples-CSV export: batches of blocks go round-robin to the workers; results come back
// (as transferred bytes) in the order they were posted, so the export writes them in sequence.
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { CsvJob, CsvJobResult } from './csv-rows';
import { startLabWorker } from '../process/lab-worker';

/** Worker threads for an export: CAPLAB_EXPORT_THREADS when set (0: format on the export's own thread), else the cores, at most 4. */
export function exportThreads(): number {
  const env = process.env.CAPLAB_EXPORT_THREADS;
  if (env !== undefined && env !== '') {
    const n = Number(env);
    if (!Number.isInteger(n) || n < 0) throw new Error(`CAPLAB_EXPORT_THREADS must be a whole number >= 0 (got ${env})`);
    return n;
  }
  return Math.min(4, availableParallelism());
}

type Reply = { seq: number; ok: true; bytes: Uint8Array; rows: number } | { seq: number; ok: false; error: string };

export class CsvWorkers {
  private readonly workers: Worker[] = [];
  private readonly waiting = new Map<number, { resolve: (r: CsvJobResult) => void; reject: (e: Error) => void }>();
  private seq = 0;

  constructor(readonly threads: number) {
    for (let i = 0; i < threads; i++) {
      const w = startLabWorker(import.meta.url, './csv-worker.ts', './csv-worker.js');
      w.on('message', (m: Reply) => {
        const p = this.waiting.get(m.seq);
        this.waiting.delete(m.seq);
        if (m.ok) p?.resolve({ bytes: m.bytes, rows: m.rows });
        else p?.reject(new Error(m.error));
      });
      w.on('error', (e) => this.failAll(e));
      this.workers.push(w);
    }
  }

  /** Posts a job to the next worker; the promise settles with its formatted rows. */
  run(job: CsvJob): Promise<CsvJobResult> {
    const seq = this.seq++;
    const done = new Promise<CsvJobResult>((resolve, reject) => this.waiting.set(seq, { resolve, reject }));
    this.workers[seq % this.workers.length]!.postMessage({ seq, job });
    return done;
  }

  async close(): Promise<void> {
    this.failAll(new Error('export stopped'));
    await Promise.all(this.workers.map((w) => w.terminate()));
  }

  private failAll(e: Error): void {
    for (const p of this.waiting.values()) p.reject(e);
    this.waiting.clear();
  }
}
