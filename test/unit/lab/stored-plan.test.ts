// A sweep recorded by any earlier release opens: stored plans are versioned and read leniently, on a real database.
import { afterAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { openDb } from '../../../src/main/lab/store/db';
import { createSweep, getSweep, listSweeps, runsOfSweep } from '../../../src/main/lab/store/sweeps';
import { PLAN_SCHEMA_VERSION } from '../../../src/main/lab/store/stored-plan';
import { scheduleRuns } from '../../../src/core/schedule';
import { Plan } from '../../../src/shared/plan';
import { tempDir } from '../../helpers/tmp';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

describe('stored plans', () => {
  const db = openDb(join(tmp.dir, 'lab.db'));
  const plan = Plan.parse({ name: 'p', workloads: [{ id: 'vit_l_16' }], caps: [300, 500], overhead_w: 80 });
  const { sweepId } = createSweep(db, { name: 'p', plan, host: 'h', backend: 'sim', simulated: true }, scheduleRuns(plan));
  const old = (json: string) => db.prepare('UPDATE sweeps SET plan = ?, plan_version = 1 WHERE id = ?').run(json, sweepId);

  it('are written with the current plan schema version and read back as written', () => {
    expect((db.prepare('SELECT plan_version v FROM sweeps WHERE id = ?').get(sweepId) as { v: number }).v).toBe(PLAN_SCHEMA_VERSION);
    expect(getSweep(db, sweepId)).toMatchObject({ plan, plan_notes: [] });
  });

  it('a plan an earlier release accepted (unknown key, values now out of bounds) opens with defaults and notes', () => {
    old(JSON.stringify({ ...plan, sample_interval_ms: 1, legacy_field: true, cooldown_s: 1e9 }));
    const s = getSweep(db, sweepId)!;
    expect(s.plan).toMatchObject({ name: 'p', caps: [300, 500], overhead_w: 80, sample_interval_ms: 100, cooldown_s: 5 });
    expect(s.plan_notes.join('\n')).toMatch(/"sample_interval_ms" \(schema v1\)/);
    expect(s.plan_notes.join('\n')).toMatch(/"legacy_field"/);
    expect(s.plan_notes.join('\n')).toMatch(/"cooldown_s"/);
    // Its runs keep their figures (the overhead still comes from the recorded plan).
    expect(runsOfSweep(db, sweepId)).toHaveLength(2);
    expect(listSweeps(db)).toHaveLength(1);
  });

  it('a plan nothing can be made of is rebuilt from the recorded runs', () => {
    old('{not json');
    const s = getSweep(db, sweepId)!;
    expect(s.plan.workloads.map((w) => w.id)).toEqual(['vit_l_16']);
    expect(s.plan.caps).toEqual([300, 500]);
    expect(s.plan_notes.at(-1)).toMatch(/not JSON/);
    old(JSON.stringify({ name: 'q', workloads: 'everything', caps: 'all of them' }));
    expect(getSweep(db, sweepId)!.plan).toMatchObject({ name: 'q', caps: [300, 500] });
  });
});
