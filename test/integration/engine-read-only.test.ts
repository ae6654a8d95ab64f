// An engine opened read-only (the commands that only read) refuses every method that would write, with the
// `invalid` code, before touching the database.
import { afterAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { readFileSync, writeFileSync } from 'node:fs';
import { Engine } from '../../src/main/lab/engine';
import { LabError } from '../../src/shared/errors';
import { tempDir } from '../helpers/tmp';

const tmp = tempDir('caplab-ro-');
afterAll(() => tmp.cleanup());

describe('a read-only engine', () => {
  it('refuses to import, save a segment or delete a dataset, and leaves the database file as it was', async () => {
    const db = join(tmp.dir, 'lab.db');
    await (await Engine.open({ dbPath: db })).close();
    const log = join(tmp.dir, 'smi.csv');
    writeFileSync(log, 'timestamp, power.draw [W]\n2026/01/01 00:00:00.000, 100.00\n2026/01/01 00:00:01.000, 110.00\n');
    const before = readFileSync(db);
    const engine = await Engine.open({ dbPath: db, readOnly: true });
    try {
      const calls: [string, () => Promise<unknown>][] = [
        ['import', () => engine.importDataset({ import_id: 'x', paths: [log], format: 'auto' })],
        ['save a segment', () => engine.saveSegment({ dataset_id: 1, start: 0, end: 1 })],
        ['delete a dataset', () => engine.deleteDataset({ dataset_id: 1 })],
      ];
      for (const [what, call] of calls) {
        const err = await call().then(() => null, (e: unknown) => e);
        expect(err, what).toBeInstanceOf(LabError);
        expect((err as LabError).code, what).toBe('invalid');
        expect((err as Error).message, what).toContain(`cannot ${what}`);
      }
      expect(await engine.listDatasets({})).toEqual([]);
    } finally {
      await engine.close();
    }
    expect(readFileSync(db).equals(before)).toBe(true);
  });
});
