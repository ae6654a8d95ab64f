// The overlay's alignment on a real SQLite file written through the store: every source's t = 0 is its window start,
// phases lie where the run's edges put them, cool-down ends at the next run or after the plan's cool-down, a
// dataset segment's throughput comes from its work-unit records, and what a source did not record is said.
import { afterAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { openDb } from '../../../src/main/lab/store/db';
import { upsertDevice } from '../../../src/main/lab/store/devices';
import { createSweep, recordRunDevice, updateRun } from '../../../src/main/lab/store/sweeps';
import { insertMetrics } from '../../../src/main/lab/store/samples';
import { addSegment, createDataset, insertDatasetMetrics } from '../../../src/main/lab/store/datasets';
import { SampleWriter, streamFor, type StreamOwner } from '../../../src/main/lab/store/sample-blocks';
import { overlayTraces } from '../../../src/main/lab/analysis/overlay';
import { Plan } from '../../../src/shared/plan';
import type { DeviceInfo } from '../../../src/shared/device';
import { overlayParam, parseOverlayParam, type OverlaySource } from '../../../src/shared/overlay';
import { tempDir } from '../../helpers/tmp';

const tmp = tempDir();
afterAll(() => tmp.cleanup());
const gpu = (index: number, name: string): DeviceInfo => ({
  id: `sim:${index}`, index, backend: 'sim', kind: 'gpu', name, vendor: 'NVIDIA', simulated: true, uuid: null, pci_bus_id: null, driver: null,
  vbios: null, limit_w: 700, enforced_limit_w: 700, min_limit_w: 200, max_limit_w: 700, default_limit_w: 700,
  sensors: { power_kinds: ['instant'], energy_counter: false, energy_counter_check: 'absent', update_period_ms: 100 },
});

const db = openDb(join(tmp.dir, 'overlay.db'));
const dev = upsertDevice(db, 'h', gpu(0, 'H100 SXM (simulated)'));
const other = upsertDevice(db, 'node2', gpu(0, 'H100 SXM (simulated)'));
const writer = new SampleWriter(db);
/** 10 Hz samples over [from, to): power by phase (what alignment must keep in place), clock optional. */
function write(owner: StreamOwner, from: number, to: number, power: (t: number) => number, clock: boolean, device = dev) {
  const rows = [];
  for (let i = 0; from + i * 0.1 < to - 1e-9; i++) {
    const t = from + i * 0.1;
    rows.push({ t, power_w: power(t), power_kind: 'instant' as const, power_avg_w: null, energy_mj: null, sm_clock_mhz: clock ? 1500 : null, mem_clock_mhz: null, temp_c: 50, util_gpu: null, util_mem: null, mem_used_mb: null, limit_w: 300, throttle_reasons: null });
  }
  writer.appendRows(streamFor(db, owner, device), rows);
  writer.flush();
}

// Sweep A: two runs of 10 s warm-up, 30 s window, 2 s stop, then a 10 s cool-down; run 2 starts 8 s after run 1
// ends, before run 1's cool-down would have ended.
const planA = Plan.parse({ name: 'a', workloads: [{ id: 'vit_l_16' }], caps: [300, 400], cooldown_s: 10 });
const A = createSweep(db, { name: 'sweep A', plan: planA, host: 'h', backend: 'sim', simulated: true }, [
  { workload: 'vit_l_16', cap_w: 300, repetition: 1, order: 0 },
  { workload: 'vit_l_16', cap_w: 400, repetition: 1, order: 1 },
]);
const r1 = { started_at: 1000, warmup_end: 1010, measure_start: 1010, measure_end: 1040, ended_at: 1042 };
const r2 = { started_at: 1050, warmup_end: 1060, measure_start: 1060, measure_end: 1090, ended_at: 1092 };
updateRun(db, A.runIds[0]!, { ...r1, status: 'done', units: 'images' });
updateRun(db, A.runIds[1]!, { ...r2, status: 'done', units: 'images' });
const phasePower = (t: number) => (t < 1010 || (t >= 1050 && t < 1060) ? 200 : (t < 1040 || (t >= 1060 && t < 1090)) ? 300 : 80);
write({ sweep_id: A.sweepId }, 995, 1110, phasePower, true);
insertMetrics(db, A.runIds[0]!, [1015, 1020, 1025].map((t) => ({ t, name: 'rate', value: t - 1000 })));

// Sweep B: one run whose samples have no SM clock and whose workload reported no steps.
const B = createSweep(db, { name: 'sweep B', plan: Plan.parse({ name: 'b', workloads: [{ id: 'llama3_8b' }], caps: [500] }), host: 'h', backend: 'sim', simulated: true }, [
  { workload: 'llama3_8b', cap_w: 500, repetition: 2, order: 0 },
]);
updateRun(db, B.runIds[0]!, { started_at: 5000, warmup_end: 5020, measure_start: 5020, measure_end: 5050, ended_at: 5051, status: 'done' });
write({ sweep_id: B.sweepId }, 5000, 5060, () => 450, false);
// Another GPU's samples in sweep B's streams (a collected cluster sweep holds every node's): run B measured only dev.
write({ sweep_id: B.sweepId }, 5000, 5060, () => 99, true, other);
recordRunDevice(db, B.runIds[0]!, dev, { energy_j: 1, mean_power_w: 450, energy_sensor: 'instant', enforced_limit_w: null });

// A dataset segment [9010, 9040) with work-unit records every 2 s (64 units each: 32 units/s).
const ds = createDataset(db, { name: 'nvsmi capture', source: 'x.csv', format: 'nvidia-smi' });
write({ dataset_id: ds }, 9000, 9050, (t) => (t >= 9010 && t < 9040 ? 310 : 60), true);
insertDatasetMetrics(db, ds, Array.from({ length: 16 }, (_, i) => ({ t: 9010 + 2 * i, name: 'units', value: 64 })));
const seg = addSegment(db, { dataset_id: ds, start: 9010, end: 9040, label: 'steady', workload: 'resnet50', cap_w: 350 });

const { sources } = overlayTraces(db, {
  sources: [{ kind: 'run', run_id: A.runIds[0]! }, { kind: 'run', run_id: A.runIds[1]! }, { kind: 'run', run_id: B.runIds[0]! }, { kind: 'segment', segment_id: seg }, { kind: 'run', run_id: 999 }],
  max_points: 5000,
});
const [a1, a2, b1, s1, bad] = sources as [OverlaySource, OverlaySource, OverlaySource, OverlaySource, OverlaySource];
const points = (s: OverlaySource) => s.devices[0]!.power_w.t.map((t, i) => ({ t, v: s.devices[0]!.power_w.v[i] }));

describe('overlay alignment', () => {
  it('puts t = 0 at the window start and the phases at the run’s edges', () => {
    expect(a1.window_start).toBe(1010);
    expect(a1.phases).toEqual([
      { phase: 'warmup', from: -10, to: 0 },
      { phase: 'measure', from: 0, to: 30 },
      // Cool-down from the window's end: ended 1042 + 10 s would be 1052, but run 2 started at 1050.
      { phase: 'cooldown', from: 30, to: 40 },
    ]);
    // The last run's cool-down is the plan's 10 s after it ended.
    expect(a2.phases.at(-1)).toEqual({ phase: 'cooldown', from: 30, to: 42 });
  });

  it('moves every sample with its window: the measured power sits inside [0, window) for each run', () => {
    for (const s of [a1, a2]) {
      const p = points(s);
      expect(p[0]!.t).toBeCloseTo(-10, 6);
      expect(p.at(-1)!.t).toBeLessThanOrEqual(s.phases.at(-1)!.to + 1e-6);
      expect(p.filter((x) => x.t >= 0.05 && x.t < 29.95).every((x) => x.v === 300)).toBe(true);
      expect(p.filter((x) => x.t < -0.05).every((x) => x.v === 200)).toBe(true);
      // The sample at the cool-down's end is the next run's first (the range is closed at both ends).
      expect(p.filter((x) => x.t > 30.05 && x.t < s.phases.at(-1)!.to - 0.05).every((x) => x.v === 80)).toBe(true);
    }
    expect(a1.throughput).toEqual({ t: [5, 10, 15], v: [15, 20, 25] });
  });

  it('names each source by sweep, workload, cap and repetition, or by dataset and segment', () => {
    expect(a1.label).toBe('#' + A.sweepId + ' sweep A · vit_l_16 · 300 W · r1');
    expect(b1.label).toBe('#' + B.sweepId + ' sweep B · llama3_8b · 500 W · r2');
    expect(s1.label).toBe(`dataset #${ds} nvsmi capture · segment ${seg} steady · resnet50 · 350 W`);
    expect(new Set(sources.map((s) => s.label)).size).toBe(sources.length);
  });

  it('says what a run did not record instead of drawing it as 0', () => {
    expect(b1.missing).toEqual([
      { metric: 'sm_clock_mhz', why: `run ${B.runIds[0]}'s samples have no SM clock` },
      { metric: 'throughput', why: `run ${B.runIds[0]}'s workload reported no throughput steps` },
    ]);
    expect(b1.devices[0]!.sm_clock_mhz.v.every((v) => v === null)).toBe(true);
    // Only the GPU the run measured: the other node's GPU (with a clock) is neither drawn nor counted.
    expect(b1.devices.map((d) => d.device_id)).toEqual(['h/sim:0/H100 SXM (simulated)']);
    expect(a1.missing).toEqual([]);
  });

  it('aligns a dataset segment at its start, with throughput from its work-unit records', () => {
    expect(s1.window_start).toBe(9010);
    expect(s1.phases).toEqual([{ phase: 'measure', from: 0, to: 30 }]);
    expect(points(s1).filter((x) => x.t < 29.95).every((x) => x.v === 310)).toBe(true);
    expect(points(s1).at(-1)!.t).toBeCloseTo(30, 6);
    expect(s1.throughput.t[0]).toBe(2);
    expect(s1.throughput.v.every((v) => v === 32)).toBe(true);
    expect(s1.missing).toEqual([]);
  });

  it('answers a run that is not stored with its error, and the others still come back', () => {
    expect(bad).toMatchObject({ source: { kind: 'run', id: 999 }, error: 'no run 999 in this database', devices: [], phases: [] });
    expect(sources.filter((s) => s.error === null)).toHaveLength(4);
  });
});

describe('overlay route parameter', () => {
  it('names runs and segments in order and reads them back, dropping repeats and naming what is not a source', () => {
    const refs = [{ kind: 'run' as const, id: 12 }, { kind: 'segment' as const, id: 4 }, { kind: 'run' as const, id: 3 }];
    expect(overlayParam(refs)).toBe('r12,s4,r3');
    expect(parseOverlayParam('r12,s4,r3,r12')).toEqual({ refs, bad: [] });
    expect(parseOverlayParam('r12,x9,s,')).toEqual({ refs: [refs[0]], bad: ['x9', 's'] });
  });
});
