// Fuzz suite over the binary inputs: NLR Parquet profiles and zip archives with bytes flipped, cut, inserted and
// deleted. Every input must give a result or an ImportError naming the file — never another exception, never a
// hang. Short by default; CAPLAB_FUZZ_LONG=1 runs 10,000 inputs per format. The Parquet reader's decoding code
// takes its 10,000 inputs on one long-lived thread (a thread per input cost ~0.5 s each: 1.5 h); the importer's
// thread wrapper (readParquetInWorker, which stops a spinning decoder) takes a share of them through its own thread.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { ImportError } from '../../../src/core/import';
import { readParquetInWorker } from '../../../src/main/lab/datasets/parquet-thread';
import { startLabWorker } from '../../../src/main/lab/process/lab-worker';
import type { FuzzJob, FuzzReply } from '../../helpers/parquet-fuzz-worker';
import { openZip } from '../../../src/main/lab/datasets/zip';
import { tempDir } from '../../helpers/tmp';

const LONG = process.env.CAPLAB_FUZZ_LONG === '1';
const RUNS = LONG ? 10_000 : 100;
// Through the importer's wrapper each Parquet input starts a reading thread (~0.5 s): fewer of them.
const PARQUET_THREAD_RUNS = LONG ? 500 : 40;
const STALL_MS = 5_000;
// On the long-lived thread a file of 225 rows decodes in milliseconds: 3 s of silence is a spinning decoder.
const LOOP_STALL_MS = 3_000;
const tmp = tempDir('caplab-fuzz-bin-');
afterAll(() => tmp.cleanup());

type Mutation = { kind: 'flip'; at: number; byte: number } | { kind: 'truncate'; at: number } | { kind: 'insert'; at: number; bytes: number[] } | { kind: 'delete'; at: number; len: number };
const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('flip' as const), at: fc.nat(), byte: fc.integer({ min: 0, max: 255 }) }),
  fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('insert' as const), at: fc.nat(), bytes: fc.array(fc.integer({ min: 0, max: 255 }), { minLength: 1, maxLength: 8 }) }),
  fc.record({ kind: fc.constant('delete' as const), at: fc.nat(), len: fc.integer({ min: 1, max: 40 }) }),
);

function apply(buf: Buffer, ms: readonly Mutation[]): Buffer {
  let b = buf;
  for (const m of ms) {
    const at = m.at % (b.length + 1);
    if (m.kind === 'flip') (b = Buffer.from(b))[Math.min(at, b.length - 1)] = m.byte;
    else if (m.kind === 'truncate') b = b.subarray(0, at);
    else if (m.kind === 'insert') b = Buffer.concat([b.subarray(0, at), Buffer.from(m.bytes), b.subarray(at)]);
    else b = Buffer.concat([b.subarray(0, at), b.subarray(at + m.len)]);
  }
  return b;
}

/** Runs `check` on mutated copies of `original`: each must resolve or throw an ImportError naming `name`, within the limit (2 s). */
async function fuzz(original: Buffer, name: string, check: (input: Buffer) => Promise<void>, o: { runs?: number; limit_ms?: number } = {}): Promise<{ results: number; errors: number }> {
  let results = 0;
  let errors = 0;
  await fc.assert(
    fc.asyncProperty(fc.array(mutation, { minLength: 1, maxLength: 3 }), async (ms) => {
      const t0 = performance.now();
      try {
        await check(apply(original, ms));
        results++;
      } catch (e) {
        if (!(e instanceof ImportError)) throw e;
        errors++;
        expect(e.message.startsWith(name)).toBe(true);
      }
      expect(performance.now() - t0).toBeLessThan(o.limit_ms ?? 2_000);
    }),
    { numRuns: o.runs ?? RUNS, seed: LONG ? undefined : 42 },
  );
  return { results, errors };
}

describe(`binary importer fuzz suite (${RUNS} mutated inputs per format${LONG ? ', long' : ''})`, () => {
  it('nlr-parquet: results/000002.parquet, read on the Parquet thread (a spinning decoder is stopped)', async () => {
    const original = readFileSync('test/fixtures/import/nlr-aggregated/llama2-70b-lora/results/000002.parquet');
    const input = join(tmp.dir, 'fuzz.parquet');
    let stalled = 0;
    const r = await fuzz(
      original,
      input,
      async (bytes) => {
        writeFileSync(input, bytes);
        let rows = 0;
        try {
          const out = await readParquetInWorker({ path: input, file: input, workload: 'w', label: 'w', t0: 0 }, { onBatch: (b) => (rows += b.n), onFraction: () => {} }, STALL_MS);
          expect(rows).toBe(out.report.rows_read);
        } catch (e) {
          if (e instanceof ImportError && /made no progress/.test(e.message)) stalled++;
          throw e;
        }
      },
      { runs: PARQUET_THREAD_RUNS, limit_ms: STALL_MS + 10_000 },
    );
    expect(r.results + r.errors).toBe(PARQUET_THREAD_RUNS);
    expect(r.errors).toBeGreaterThan(0);
    // Seed 42 includes inputs on which the decoder spins; they are stopped, not waited for.
    if (!LONG) expect(stalled).toBeGreaterThan(0);
  }, LONG ? 1_800_000 : 240_000);

  it(`nlr-parquet: results/000002.parquet, ${RUNS} inputs through the reader's decoding code on one long-lived thread`, async () => {
    const original = readFileSync('test/fixtures/import/nlr-aggregated/llama2-70b-lora/results/000002.parquet');
    const input = join(tmp.dir, 'fuzz-loop.parquet');
    const start = () => startLabWorker(import.meta.url, '../../helpers/parquet-fuzz-worker.ts', '', {});
    let w = start();
    let next = 0;
    let stalled = 0;
    const read = (job: FuzzJob) =>
      new Promise<FuzzReply | null>((resolve, reject) => {
        const timer = setTimeout(() => {
          off();
          resolve(null);
        }, LOOP_STALL_MS);
        const onMessage = (m: FuzzReply) => {
          if (m.id !== job.id) return;
          off();
          resolve(m);
        };
        const onError = (e: Error) => {
          off();
          reject(e);
        };
        const off = () => {
          clearTimeout(timer);
          w.off('message', onMessage).off('error', onError);
        };
        w.on('message', onMessage).on('error', onError);
        w.postMessage(job);
      });
    try {
      const r = await fuzz(
        original,
        input,
        async (bytes) => {
          writeFileSync(input, bytes);
          const reply = await read({ id: next++, path: input, file: input });
          if (reply === null) {
            // A spinning decoder: the importer stops its thread and refuses the file; so does this.
            stalled++;
            await w.terminate();
            w = start();
            throw new ImportError(input, null, 'the Parquet decoder made no progress');
          }
          if ('error' in reply) {
            if (!reply.import_error) throw new Error(`not an ImportError: ${reply.error}`);
            expect(reply.error.startsWith(input)).toBe(true);
            throw new ImportError(input, null, reply.error.slice(input.length + 2));
          }
          expect(reply.rows).toBe(reply.rows_read);
        },
        { limit_ms: LOOP_STALL_MS + 10_000 },
      );
      expect(r.results + r.errors).toBe(RUNS);
      expect(r.results).toBeGreaterThan(0);
      expect(r.errors).toBeGreaterThan(0);
      console.log(`nlr-parquet loop: ${r.results} read, ${r.errors} refused (${stalled} stopped spinning)`);
    } finally {
      await w.terminate();
    }
  }, LONG ? 3_600_000 : 120_000);

  it('zip: two logs, deflated', async () => {
    const file = join(tmp.dir, 'logs.zip');
    execFileSync('/usr/bin/python3', ['-c', `import zipfile\nwith zipfile.ZipFile('${file}', 'w', zipfile.ZIP_DEFLATED) as z:\n    z.write('test/fixtures/import/zeus-windows.csv', 'a/zeus.csv')\n    z.write('test/fixtures/import/dcgmi-dmon.txt', 'b/dmon.txt')`]);
    const original = readFileSync(file);
    const input = join(tmp.dir, 'fuzz.zip');
    const r = await fuzz(original, input, async (bytes) => {
      writeFileSync(input, bytes);
      const zip = await openZip(input, bytes.length);
      try {
        for (const m of zip.members) {
          let n = 0;
          try {
            for await (const c of await m.open()) n += (c as Buffer).length;
          } catch (e) {
            // A member whose data is corrupt is reported by the importer as that member (files.ts readChunks).
            throw new ImportError(`${input}/${m.name}`, null, (e as Error).message);
          }
          expect(n).toBe(m.bytes);
        }
      } finally {
        zip.close();
      }
    });
    expect(r.results + r.errors).toBe(RUNS);
    expect(r.results).toBeGreaterThan(0);
  }, LONG ? 1_800_000 : 60_000);
});
