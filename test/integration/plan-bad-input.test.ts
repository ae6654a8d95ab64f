// Plans that are bad input and were once internal errors or accepted (issue #32, items 3, 6 and 7): each is exit 2
// through the real CLI and a 400 (or validatePlan's ok: false) through the real host, naming the field.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli';
import { openFixtureHost, type FixtureHost } from '../helpers/fixture-host';
import { postText } from '../helpers/host-post';
import { tempDir } from '../helpers/tmp';

const tmp = tempDir('caplab-plan-bad-');
afterAll(() => tmp.cleanup());
const env = { CAPLAB_SIM_STATE_DIR: join(tmp.dir, 'sim'), CAPLAB_DATA_DIR: tmp.dir };
let n = 0;
async function sweep(yaml: string) {
  const file = join(tmp.dir, `plan-${++n}.yaml`);
  writeFileSync(file, yaml);
  return runCli(['sweep', file, '--db', join(tmp.dir, `lab-${n}.db`)], env);
}
const base = 'backend: sim\nworkloads: [{id: vit_l_16}]\nsim: {devices: [h100-sxm]}\n';

describe('caplab sweep: bad plans are exit 2 naming the field, never an internal error', () => {
  it('caps {from: 200, to: 700, step: 0.01} (50,001 caps) is refused like a 1e15-step range', async () => {
    const r = await sweep(`${base}caps: {from: 200, to: 700, step: 0.01}\n`);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('caps: the plan would make 50,001 runs (workloads x caps x repetitions); a plan may have at most 10,000');
    expect(r.stderr).not.toMatch(/internal error/);
  });

  it('a self-referencing YAML alias (a: &a [*a])', async () => {
    const r = await sweep('a: &a [*a]\n');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/a\.0: The plan holds itself at a\.0 \(an alias used inside its own anchor\?\): it must be plain data/);
    expect(r.stderr).not.toMatch(/circular structure|internal error/);
  });

  it('sim: {extra: 1} and overhead_w: 1e308 are refused; list entries are numbered as their paths are (from 0)', async () => {
    const r = await sweep(`${base.replace('sim: {devices: [h100-sxm]}', 'sim: {devices: [h100-sxm], extra: 1}')}caps: [300]\noverhead_w: 1e308\ndevices: [-1]\n`);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('sim: Simulation options has unknown field extra');
    expect(r.stderr).toContain('overhead_w: at most 100000 W (got 1e+308)');
    expect(r.stderr).toContain('devices.0: Devices[0] must be at least 0 (got -1)');
  });

  it('a 1 MB name is quoted cut to 200 characters, with its length', async () => {
    const r = await sweep(`${base}caps: [300]\nname: ${'n'.repeat(1_000_000)}\n`);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`name: Name must be at most 200 (got "${'n'.repeat(200)}... (1000000 characters)")`);
    expect(r.stderr.length).toBeLessThan(2000);
  });
});

describe('the host: a 100,000-deep JSON plan', () => {
  let host: FixtureHost;
  beforeAll(async () => {
    host = await openFixtureHost();
  }, 60_000);
  afterAll(() => host?.close());
  // Written by hand: JSON.stringify itself recurses and cannot write it.
  const deep = `{"plan":{"caps":${'['.repeat(100_000)}1${']'.repeat(100_000)}}}`;
  const post = <T,>(method: string, body: string) => postText<T>(host.server, method, body);

  it('validatePlan answers ok: false naming the nesting, not a 500', async () => {
    const r = await post<{ ok: boolean; issues: { path: string; message: string }[] }>('validatePlan', deep);
    expect(r.status).toBe(200);
    expect(r.json.ok).toBe(false);
    expect(r.json.issues).toEqual([{ path: '', message: 'The plan is nested more than 32 levels deep (at caps.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0)', severity: 'error' }]);
  });

  it('startSweep and planToYaml refuse it with 400', async () => {
    for (const method of ['startSweep', 'planToYaml']) {
      const r = await post<{ code: string; error: string }>(method, deep);
      expect(r.status, method).toBe(400);
      expect(r.json.code).toBe('invalid');
      // startSweep takes any value and checks its shape first; planToYaml's input is a Plan, refused at its first element.
      expect(r.json.error).toMatch(method === 'startSweep' ? /The plan is nested more than 32 levels deep/ : /input\.plan\.caps: at 0: /);
      expect(r.json.error).not.toMatch(/call stack/);
    }
  });
});
