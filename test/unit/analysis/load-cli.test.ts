// Store rows -> AnalysisInput, and the `caplab analyze` / `caplab energy` commands, on a real SQLite file
// written through the store's public functions.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { openDb } from '../../../src/main/lab/store/db';
import { upsertDevice } from '../../../src/main/lab/store/devices';
import { insertMetrics, writeSamples } from '../../../src/main/lab/store/samples';
import { createSweep, recordRunDevice, updateRun } from '../../../src/main/lab/store/sweeps';
import { energyInRange, loadSweepInput } from '../../../src/main/lab/analysis/load';
import { analyzeSweep } from '../../../src/core/analysis/analyze';
import { main } from '../../../src/main/cli/main';
import { parseTimeArg } from '../../../src/main/cli/commands/energy';
import { AnalysisResult } from '../../../src/shared/analysis';
import { Plan } from '../../../src/shared/plan';
import type { DeviceInfo, Sample } from '../../../src/shared/device';
import { tempDir } from '../../helpers/tmp';
import { H100_CAPS, H100_VIT } from './synth';

const device: DeviceInfo = {
  id: 'sim:0', index: 0, backend: 'sim', kind: 'gpu', name: 'NVIDIA H100 80GB HBM3 (simulated)', vendor: 'sim', simulated: true,
  uuid: null, pci_bus_id: null, driver: null, vbios: null, limit_w: 700, enforced_limit_w: 700, min_limit_w: 200, max_limit_w: 700,
  default_limit_w: 700, sensors: { power_kinds: ['instant'], energy_counter: true, energy_counter_check: 'ok', update_period_ms: 100 },
};

const tmp = tempDir();
const file = join(tmp.dir, 'lab.db');
let sweepId = 0;
/** Measurement window of the first run (200 W, repetition 1), for the energy command. */
let firstWindow = { start: 0, end: 0 };

beforeAll(() => {
  const db = openDb(file);
  const plan = Plan.parse({ name: 'paper-vit', workloads: [{ id: 'vit_l_16' }], caps: H100_CAPS, repetitions: 2, overhead_w: 100 });
  const planned = H100_CAPS.flatMap((cap_w, i) => [1, 2].map((repetition) => ({ workload: 'vit_l_16', cap_w, repetition, order: 2 * i + repetition - 1 })));
  const created = createSweep(db, { name: 'paper-vit', plan, host: 'test', backend: 'sim', simulated: true }, planned);
  sweepId = created.sweepId;
  const devId = upsertDevice(db, 'test', device);
  let t0 = 2_000_000_000;
  created.runIds.forEach((runId, k) => {
    const p = planned[k]!;
    const T = H100_VIT[H100_CAPS.indexOf(p.cap_w)]! * (p.repetition === 1 ? 0.99 : 1.01);
    const power = 0.97 * p.cap_w;
    const start = t0 + 10;
    const end = start + 40;
    if (k === 0) firstWindow = { start, end };
    const samples: Sample[] = [];
    for (let i = 0; i <= 100; i++) {
      const t = t0 + i * 0.5;
      samples.push({
        device_id: device.id, t, power_w: t < t0 + 5 ? power * 0.7 : power, power_kind: 'instant', power_avg_w: null, energy_mj: null,
        sm_clock_mhz: 1200, mem_clock_mhz: 2619, temp_c: 50, util_gpu: 100, util_mem: 50, mem_used_mb: 1000, limit_w: p.cap_w, throttle_reasons: 4,
      });
    }
    writeSamples(db, { sweep_id: sweepId }, devId, samples);
    insertMetrics(db, runId, Array.from({ length: 50 }, (_, i) => [
      { t: t0 + i + 1, name: 'units', value: T },
      { t: t0 + i + 1, name: 'rate', value: T },
    ]).flat());
    updateRun(db, runId, {
      status: 'done', started_at: t0, ended_at: end, warmup_end: start, measure_start: start, measure_end: end, units: 'images',
      units_in_window: T * 40, gpus: 1, energy_j: power * 40, energy_sensor: 'instant', enforced_limit_w: p.cap_w,
    });
    recordRunDevice(db, runId, devId, { energy_j: power * 40, mean_power_w: power, energy_sensor: 'instant', enforced_limit_w: p.cap_w });
    t0 = end + 20;
  });
  db.close();
});
afterAll(() => tmp.cleanup());

function capture() {
  let out = '';
  let err = '';
  const sink = (f: (s: string) => void) => new Writable({ write: (c, _e, cb) => (f(String(c)), cb()) });
  return {
    io: { stdout: sink((s) => (out += s)), stderr: sink((s) => (err += s)), env: { ...process.env, CAPLAB_DB: file } },
    out: () => out,
    err: () => err,
  };
}

describe('loadSweepInput', () => {
  it('turns store rows into analysis input', () => {
    const db = openDb(file, { readonly: true });
    const { input, sweep, adaptive } = loadSweepInput(db, sweepId);
    db.close();
    expect(sweep.name).toBe('paper-vit');
    expect(adaptive).toBeNull();
    expect(input.overhead_w).toBe(100);
    expect(input.runs).toHaveLength(12);
    const r = input.runs[0]!;
    expect(r).toMatchObject({ workload: 'vit_l_16', device_model: 'NVIDIA H100 80GB HBM3 (simulated)', cap_w: 200, repetition: 1, gpus: 1, units: 'images', enforced_limit_w: 200 });
    expect(r.window!.end - r.window!.start).toBe(40);
    expect(r.units_in_window).toBeCloseTo(116.4 * 0.99 * 40, 6);
    expect(r.devices![0]!.samples).toHaveLength(101);
    expect(r.steps![0]).toMatchObject({ units: 116.4 * 0.99, dt: 1 });
  });
  it('and the analysis of it finds the paper\'s optimum', () => {
    const db = openDb(file, { readonly: true });
    const res = analyzeSweep(loadSweepInput(db, sweepId).input);
    db.close();
    const g = res.groups[0]!;
    // 214.9 / (291 + 100) = 0.549616 images/J at 300 W; repetitions 0.99/1.01 average to the paper's figure
    expect(g.best.cap_w).toBe(300);
    expect(g.caps[1]!.efficiency.mean).toBeCloseTo(0.549616, 6);
    expect(g.caps[1]!.efficiency.ci!.t).toBeCloseTo(12.7062, 4);
    expect(g.caps.every((c) => c.enforcement.enforced === true)).toBe(true);
  });
  it('an unknown sweep is a LoadError', () => {
    const db = openDb(file, { readonly: true });
    expect(() => loadSweepInput(db, 9999)).toThrow(/no sweep 9999/);
    db.close();
  });
});

describe('caplab analyze', () => {
  it('--json prints the full AnalysisResult', async () => {
    const c = capture();
    expect(await main(['analyze', String(sweepId), '--json', '--overhead', '200'], c.io)).toBe(0);
    const res = AnalysisResult.parse(JSON.parse(c.out()));
    expect(res.options.overhead_w).toBe(200);
    // at 200 W overhead the sensitivity table says 400 W (crossover 181.7 W)
    expect(res.groups[0]!.best.cap_w).toBe(400);
  });
  it('prints tables for people', async () => {
    const c = capture();
    expect(await main(['analyze', String(sweepId), '--selector', 'min-edp'], c.io)).toBe(0);
    expect(c.out()).toMatch(/min-edp \*/);
    expect(c.out()).toMatch(/best cap vs node overhead/);
  });
  it('bad arguments are clear errors', async () => {
    const c = capture();
    expect(await main(['analyze', 'abc'], c.io)).toBe(2);
    expect(await main(['analyze', String(sweepId), '--selector', 'fastest'], c.io)).toBe(2);
    expect(await main(['analyze', '9999'], c.io)).toBe(2);
    expect(await main(['analyze', '1', '--db', join(tmp.dir, 'missing.db')], c.io)).toBe(2);
    expect(c.err()).toMatch(/--selector must be one of/);
    expect(c.err()).toMatch(/no sweep 9999/);
    expect(c.err()).toMatch(/missing\.db/);
  });
});

describe('caplab energy', () => {
  it('energy over a time range from stored samples, JSON fields energy_j, mean_w, samples, sensor', async () => {
    const c = capture();
    const { start, end } = firstWindow;
    expect(await main(['energy', '--from', String(start), '--to', new Date(end * 1000).toISOString(), '--device', '0', '--json'], c.io)).toBe(0);
    const r = JSON.parse(c.out());
    // first run: 200 W cap, 194 W over 40 s = 7760 J
    expect(r.energy_j).toBeCloseTo(7760, 6);
    expect(r.mean_w).toBeCloseTo(194, 6);
    expect(r.samples).toBe(81);
    expect(r.sensor).toBe('instant');
  });
  it('same numbers as energyInRange', () => {
    const db = openDb(file, { readonly: true });
    const r = energyInRange(db, firstWindow.start, firstWindow.end);
    db.close();
    expect(r.devices).toHaveLength(1);
    expect(r.energy_j).toBeCloseTo(7760, 6);
  });
  it('a range without samples is explicit', async () => {
    const c = capture();
    expect(await main(['energy', '--from', '100', '--to', '200', '--json'], c.io)).toBe(1);
    expect(JSON.parse(c.out())).toMatchObject({ energy_j: null, warnings: ['no samples in this time range'] });
  });
  it('parses ISO-8601 and epoch seconds; rejects the rest', async () => {
    expect(parseTimeArg('from', '1764491157.5')).toBe(1764491157.5);
    expect(parseTimeArg('from', '2026-11-30T08:45:57Z')).toBe(Date.UTC(2026, 10, 30, 8, 45, 57) / 1000);
    expect(() => parseTimeArg('from', 'yesterday')).toThrow(/ISO-8601/);
    const c = capture();
    expect(await main(['energy', '--from', '200', '--to', '100'], c.io)).toBe(2);
    expect(await main(['energy', '--from', '1', '--to', '2', '--dataset', '3'], c.io)).toBe(2);
    expect(c.err()).toMatch(/--to must be after --from/);
    expect(c.err()).toMatch(/no dataset 3 in this database/);
  });
});
