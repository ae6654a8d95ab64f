// Where a samples Parquet export's row groups are encoded: on the export's own thread (small exports), or in a
// worker thread, pipelined: the worker encodes and writes one group while the export reads and gathers the next
// (two groups alive at most: memory stays flat).
import { ParquetFile, type ParquetFileOptions } from './parquet-file';
import { transferList, type GatheredGroup } from './parquet-group';
import { startLabWorker } from '../process/lab-worker';

type Request = { type: 'open'; path: string; options: ParquetFileOptions } | { type: 'group'; group: GatheredGroup } | { type: 'finish' } | { type: 'abort' };
export type ParquetRequest = Request & { seq: number };
type Reply = { seq: number; ok: true; group?: GatheredGroup } | { seq: number; ok: false; error: string };
/** Receives a written group's arrays back, to gather another group into. */
export type Recycle = (g: GatheredGroup) => void;

export interface ParquetEncoder {
  /** Takes a gathered group (its arrays move away, and come back through the Recycle callback once written); resolves
   * when the next one may be gathered. */
  write(g: GatheredGroup): Promise<void>;
  /** Writes the footer and closes the file. */
  finish(): Promise<void>;
  /** Releases the file and any thread (after finish, or on failure: the file is then left for the caller to remove). */
  close(): Promise<void>;
}

/** Encodes on this thread, letting the host's other requests (and progress events) through between groups. */
export class HereEncoder implements ParquetEncoder {
  private readonly file: ParquetFile;
  constructor(
    path: string,
    options: ParquetFileOptions,
    private readonly recycle: Recycle,
  ) {
    this.file = new ParquetFile(path, options);
  }
  async write(g: GatheredGroup): Promise<void> {
    this.file.write(g);
    this.recycle(g);
    await new Promise<void>((ok) => setImmediate(ok));
  }
  async finish(): Promise<void> {
    this.file.finish();
  }
  async close(): Promise<void> {
    this.file.close();
  }
}

/** Encodes in a worker thread, one group in flight while the next is gathered. */
export class WorkerEncoder implements ParquetEncoder {
  private readonly worker = startLabWorker(import.meta.url, './parquet-export-worker.ts', './parquet-export-worker.js');
  private readonly waiting = new Map<number, { resolve: (g?: GatheredGroup) => void; reject: (e: Error) => void }>();
  private seq = 0;
  private dead: Error | null = null;
  private pending: Promise<void>;

  constructor(
    path: string,
    options: ParquetFileOptions,
    private readonly recycle: Recycle,
  ) {
    this.worker.on('message', (m: Reply) => {
      const p = this.waiting.get(m.seq);
      this.waiting.delete(m.seq);
      if (m.ok) p?.resolve(m.group);
      else p?.reject(new Error(m.error));
    });
    this.worker.on('error', (e) => this.fail(e));
    this.worker.on('exit', () => this.fail(new Error('the Parquet worker thread stopped')));
    this.pending = this.send({ type: 'open', path, options }).then(() => undefined);
    this.pending.catch(() => undefined);
  }

  async write(g: GatheredGroup): Promise<void> {
    await this.pending;
    this.pending = this.send({ type: 'group', group: g }, transferList(g)).then((back) => {
      if (back) this.recycle(back);
    });
    this.pending.catch(() => undefined);
  }

  async finish(): Promise<void> {
    await this.pending;
    await this.send({ type: 'finish' });
  }

  async close(): Promise<void> {
    try {
      await this.pending.catch(() => undefined);
      await this.send({ type: 'abort' }).catch(() => undefined);
    } finally {
      await this.worker.terminate();
    }
  }

  private send(req: Request, transfer: ArrayBuffer[] = []): Promise<GatheredGroup | undefined> {
    if (this.dead) return Promise.reject(this.dead);
    const seq = this.seq++;
    const done = new Promise<GatheredGroup | undefined>((resolve, reject) => this.waiting.set(seq, { resolve, reject }));
    // a failure is seen where the reply is awaited; until then it must not count as unhandled
    done.catch(() => undefined);
    this.worker.postMessage({ ...req, seq }, transfer);
    return done;
  }

  private fail(e: Error): void {
    this.dead ??= e;
    for (const p of this.waiting.values()) p.reject(e);
    this.waiting.clear();
  }
}
