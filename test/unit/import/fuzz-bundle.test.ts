// Fuzz suite over CapLab's own JSON export (caplab-json): a real dataset bundle (the hpc-ai-perf-bench fixture
// imported and exported by the engine) with its text cut and bytes flipped, and its parsed structure mutated (keys
// dropped, values nulled, made negative, huge, strings or empty arrays, arrays cut or doubled, values swapped),
// imported through the real importer into a real SQLite file. Every input must import or fail with an ImportError
// naming the file, leaving the database as it was; never another exception, never a hang. Short by default;
// CAPLAB_FUZZ_LONG=1 runs 10,000 inputs.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ImportError } from '../../../src/core/import';
import { openDb, type Db } from '../../../src/main/lab/store/db';
import { importPaths } from '../../../src/main/lab/datasets/importer';
import { datasetBundle } from '../../../src/main/lab/exporters/bundle';
import { tempDir } from '../../helpers/tmp';

const LONG = process.env.CAPLAB_FUZZ_LONG === '1';
const RUNS = LONG ? 10_000 : 150;
const tmp = tempDir('caplab-fuzz-bundle-');
let db: Db;
let original: unknown;

beforeAll(async () => {
  const src = openDb(join(tmp.dir, 'src.db'));
  const o = await importPaths(src, ['test/fixtures/import/hpcai-tree'], { format: 'auto', zone: 'UTC' });
  original = JSON.parse(JSON.stringify(datasetBundle(src, o.dataset!.id)));
  src.close();
  db = openDb(join(tmp.dir, 'fuzz.db'));
}, 60_000);
afterAll(() => {
  db.close();
  tmp.cleanup();
});

type Op = 'delete' | 'null' | 'negative' | 'huge' | 'string' | 'empty' | 'cut' | 'double' | 'swap';
type Mutation = { kind: 'tree'; op: Op; at: number; other: number } | { kind: 'truncate'; at: number } | { kind: 'flip'; at: number; char: number };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('tree' as const), op: fc.constantFrom<Op>('delete', 'null', 'negative', 'huge', 'string', 'empty', 'cut', 'double', 'swap'), at: fc.nat(), other: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('flip' as const), at: fc.nat(), char: fc.integer({ min: 0, max: 127 }) }) },
);

/** Every [parent, key] in a JSON value, depth first. */
function places(v: unknown, out: [Record<string | number, unknown>, string | number][] = []): [Record<string | number, unknown>, string | number][] {
  if (v && typeof v === 'object') {
    for (const k of Object.keys(v)) {
      out.push([v as Record<string, unknown>, Array.isArray(v) ? Number(k) : k]);
      places((v as Record<string, unknown>)[k], out);
    }
  }
  return out;
}

function mutate(tree: unknown, m: Extract<Mutation, { kind: 'tree' }>): void {
  const all = places(tree);
  const [parent, key] = all[m.at % all.length]!;
  const v = parent[key];
  switch (m.op) {
    case 'delete':
      if (Array.isArray(parent)) parent.splice(key as number, 1);
      else delete parent[key];
      break;
    case 'null':
      parent[key] = null;
      break;
    case 'negative':
      parent[key] = typeof v === 'number' ? -v - 1 : -1;
      break;
    case 'huge':
      parent[key] = 1e308;
      break;
    case 'string':
      parent[key] = 'x';
      break;
    case 'empty':
      parent[key] = Array.isArray(v) ? [] : {};
      break;
    case 'cut':
      if (Array.isArray(v)) v.length = Math.floor(v.length / 2);
      break;
    case 'double':
      if (Array.isArray(v)) v.push(...(JSON.parse(JSON.stringify(v)) as unknown[]));
      break;
    case 'swap': {
      const [p2, k2] = all[m.other % all.length]!;
      parent[key] = JSON.parse(JSON.stringify(p2[k2] ?? null));
      break;
    }
  }
}

function counts(): string {
  return JSON.stringify(['datasets', 'devices', 'sample_blocks', 'dataset_segments', 'metrics', 'dataset_files'].map((t) => (db.prepare(`SELECT COUNT(*) AS n FROM ${t}`).get() as { n: number }).n));
}

describe('caplab-json inputs the fuzz suite found', () => {
  it('a sample time of 1e308 (out of the store\'s range) is refused naming the file, nothing written', async () => {
    const b = JSON.parse(JSON.stringify(original)) as { samples: { t: number[] }[] };
    b.samples[0]!.t[3] = 1e308;
    const input = join(tmp.dir, 'huge-t.json');
    writeFileSync(input, JSON.stringify(b));
    const before = counts();
    await expect(importPaths(db, [input], { format: 'caplab-json', zone: 'UTC' })).rejects.toThrow(new ImportError(input, null, 'a sample the store cannot hold: t value 1e+308 is out of the storable range'));
    expect(counts()).toBe(before);
  });
});

describe(`caplab-json fuzz suite (${RUNS} mutated dataset bundles${LONG ? ', long' : ''})`, () => {
  it('caplab-json: a dataset bundle, cut, flipped and structurally mutated, imported into SQLite', async () => {
    const input = join(tmp.dir, 'fuzz.json');
    let results = 0;
    let errors = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(mutation, { minLength: 1, maxLength: 3 }), async (ms) => {
        const tree = JSON.parse(JSON.stringify(original)) as unknown;
        for (const m of ms) if (m.kind === 'tree') mutate(tree, m);
        let text = JSON.stringify(tree);
        for (const m of ms) {
          if (m.kind === 'truncate') text = text.slice(0, m.at % (text.length + 1));
          else if (m.kind === 'flip' && text.length) {
            const at = m.at % text.length;
            text = text.slice(0, at) + String.fromCharCode(m.char) + text.slice(at + 1);
          }
        }
        writeFileSync(input, text);
        const before = counts();
        const t0 = performance.now();
        try {
          const o = await importPaths(db, [input], { format: 'caplab-json', zone: 'UTC' });
          results++;
          const made = o.datasets[0]!;
          if (made.duplicate_of_dataset === null) {
            expect(o.dataset?.id).toBe(made.dataset_id);
            const stored = db.prepare('SELECT COALESCE(SUM(n), 0) AS n FROM sample_blocks b JOIN sample_streams s ON s.id = b.stream_id WHERE s.dataset_id = ?').get(made.dataset_id) as { n: number };
            expect(stored.n).toBe(o.dataset!.samples);
          }
        } catch (e) {
          if (!(e instanceof ImportError)) throw e;
          errors++;
          expect(e.message.startsWith(input)).toBe(true);
          expect(counts()).toBe(before);
        }
        expect(performance.now() - t0).toBeLessThan(5_000);
      }),
      { numRuns: RUNS, seed: LONG ? undefined : 42 },
    );
    expect(results + errors).toBe(RUNS);
    expect(results).toBeGreaterThan(0);
    expect(errors).toBeGreaterThan(0);
    console.log(`caplab-json: ${results} imported, ${errors} refused`);
  }, LONG ? 3_600_000 : 120_000);
});
