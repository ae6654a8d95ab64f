// Fuzz suite of whole imports (issue #32): the text fixtures with out-of-range numbers, impossible readings, far-off
// years and emptied files, each written to a file and imported through the real importer into one real SQLite
// database. Every input either becomes a dataset holding samples (never an empty one) or fails with an ImportError
// naming its file, writing nothing; never another exception. Short by default; CAPLAB_FUZZ_LONG=1 runs 10,000
// inputs per format.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ImportError } from '../../../src/core/import';
import { openDb, type Db } from '../../../src/main/lab/store/db';
import { importPaths } from '../../../src/main/lab/datasets/importer';
import type { ImportFormat } from '../../../src/shared/dataset';
import { applyBad, badValue } from '../../helpers/fuzz-values';
import { tempDir } from '../../helpers/tmp';

const LONG = process.env.CAPLAB_FUZZ_LONG === '1';
const RUNS = LONG ? 10_000 : 40;
const tmp = tempDir('caplab-fuzz-import-');
let db: Db;
beforeAll(() => {
  db = openDb(join(tmp.dir, 'fuzz.db'));
});
afterAll(() => {
  db.close();
  tmp.cleanup();
});

const FIXTURES: [ImportFormat, string][] = [
  ['nvidia-smi', 'nvidia-smi-seed.csv'],
  ['hpcai-rocm-smi', 'rocm_smi_gpu_usage.csv'],
  ['wattameter', 'wattameter-node.log'],
  ['dcgm-dmon', 'dcgmi-dmon.txt'],
  ['zeus', 'zeus-windows.csv'],
  ['codecarbon', 'codecarbon-emissions.csv'],
  ['prometheus', 'prometheus-dcgm.json'],
  ['facility-csv', 'facility-profile.csv'],
];

const count = (table: string) => (db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;

describe(`import fuzz suite: bad values through the importer into SQLite (${RUNS} inputs per format${LONG ? ', long' : ''})`, () => {
  for (const [format, file] of FIXTURES) {
    const text = readFileSync(`test/fixtures/import/${file}`, 'utf8');
    it(`${format}: ${file}`, async () => {
      const seen = { imported: 0, duplicate: 0, refused: 0, empty_refused: 0 };
      let k = 0;
      await fc.assert(
        fc.asyncProperty(fc.array(badValue, { minLength: 1, maxLength: 3 }), async (ms) => {
          const path = join(tmp.dir, `${format}-${++k}${file.slice(file.lastIndexOf('.'))}`);
          writeFileSync(path, applyBad(text, ms));
          const before = [count('datasets'), count('sample_blocks')];
          try {
            const out = await importPaths(db, [path], { format, zone: 'UTC', parse_thread: 'inline' });
            if (out.dataset === null) {
              expect(out.duplicate_of).not.toBeNull();
              seen.duplicate++;
            } else {
              seen.imported++;
              expect(out.dataset.samples).toBeGreaterThan(0);
              expect(out.dataset.samples).toBe(out.dataset.report!.rows_read);
            }
          } catch (e) {
            if (!(e instanceof ImportError)) throw e;
            seen.refused++;
            if (/no reading to import|no header|empty file/.test(e.message)) seen.empty_refused++;
            expect(e.message.startsWith(path)).toBe(true);
            expect([count('datasets'), count('sample_blocks')]).toEqual(before);
          }
        }),
        { numRuns: RUNS, seed: LONG ? undefined : 42 },
      );
      expect(seen.imported + seen.duplicate + seen.refused).toBe(RUNS);
      expect(seen.refused).toBeGreaterThan(0);
      if (LONG) console.log(`${format} ${file} import: ${JSON.stringify(seen)}`);
    }, LONG ? 3_600_000 : 60_000);
  }
});
