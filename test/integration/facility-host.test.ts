// The facility planner through the engine contract on a real browser host: a run returns its levels, and bad
// facility input (a field out of range, a dataset segment that is not there) is a 400 'invalid' naming the field.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { openFixtureHost, type FixtureHost } from '../helpers/fixture-host';
import { smallTraining } from '../unit/facility/helpers';

let host: FixtureHost;
beforeAll(async () => {
  host = await openFixtureHost({ migrateWithCli: false });
});
afterAll(() => host?.close());

const withProfile = (profile: Record<string, unknown>) => ({ ...smallTraining, jobs: [{ ...smallTraining.jobs![0], profile }] });

describe('facility through the host', () => {
  it('runFacility returns the levels of a config', async () => {
    const r = await host.post<{ levels: { target_utilization: number; utilization: number; mean_w: number }[] }>('runFacility', { yaml: stringify(smallTraining), horizon_days: 3 });
    expect(r.status).toBe(200);
    expect(r.json.levels).toHaveLength(1);
    expect(r.json.levels[0]!.utilization).toBeGreaterThan(0.4);
    expect(r.json.levels[0]!.mean_w).toBeGreaterThan(200 * 420);
  }, 60_000);

  it('bad input is 400 invalid naming the field: a target over 100 %, a missing dataset segment', async () => {
    const over = await host.post<{ code: string; error: string }>('runFacility', { yaml: stringify({ ...smallTraining, targets: [1.5] }) });
    expect(over).toMatchObject({ status: 400, json: { code: 'invalid' } });
    expect(over.json.error).toBe('facility config: targets[0]: utilisation is a fraction of nodes busy: at most 1 (100 %) (got 1.5)');
    const segment = await host.post<{ code: string; error: string }>('runFacility', { yaml: stringify(withProfile({ segment: { db: host.db, segment_id: 99 } })) });
    expect(segment).toMatchObject({ status: 400, json: { code: 'invalid' } });
    expect(segment.json.error).toMatch(/^facility config: jobs\[0\]\.profile\.segment\.segment_id: no dataset segment 99/);
  }, 60_000);
});
