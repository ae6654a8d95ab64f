// Issue #25's second H200 capture (test/fixtures/h200-signal-edges/, bench/gpu/h200_signal.py, 2026-12-04): every
// phase edge sits on one of NVML's ~100 ms counter updates, so each mark is the counter's energy at its instant
// (the first capture's marks were up to one update stale). exact.log is every update, polled by a separate process.
// The WattAMeter log goes through the real importer into a SQLite file and back out through the engine's energy.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COUNTER_READ_LAG_S, DENSE_AVERAGE_ALIGN_S, DENSE_AVERAGE_ENERGY_ALIGN_S, NVML_UPDATE_S } from '../../src/core/analysis/average-power';
import { windowEnergy } from '../../src/core/analysis/energy';
import { Engine } from '../../src/main/lab/engine';
import { loadH200Signal, type SignalPhase } from '../helpers/h200-signal';

const dir = join(__dirname, '../fixtures/h200-signal-edges');
const cap = loadH200Signal('h200-signal-edges');
const pct = (e: number, p: SignalPhase) => ((e - p.counter_j) / p.counter_j) * 100;
/** Each update: its instant (middle of the last read before it and the first after) and the value it brought. */
const updates = readFileSync(join(dir, 'exact.log'), 'utf8')
  .split('\n')
  .filter((l) => l.trim() && !l.startsWith('#'))
  .map((l) => l.trim().split(/\s+/).map(Number))
  .map(([before, after, mj]) => ({ t: (before! + after!) / 2, mj: mj! }));

describe('the edge-exact H200 capture', () => {
  it('has 8 loads and 9 idle phases of 8 s or more, every mark on an update of the counter', () => {
    expect(cap.phases.filter((p) => p.kind === 'load')).toHaveLength(8);
    expect(cap.phases.filter((p) => p.after_load)).toHaveLength(8);
    expect(cap.phases.every((p) => p.end - p.start >= 8)).toBe(true);
    const byValue = new Map(updates.map((u) => [u.mj, u.t]));
    for (const m of cap.marks) {
      expect(byValue.has(m.energy_mj), m.name).toBe(true);
      // The load process and the poller saw the same update within a few ms (an NVML read takes 3-5 ms here, 17 at worst).
      expect(Math.abs(byValue.get(m.energy_mj)! - m.t), m.name).toBeLessThan(0.02);
    }
  });

  it('the counter updates every 100 ms, and a steady 100 ms logger reads each value about half an update after it', () => {
    const gaps = updates.slice(1).map((u, i) => u.t - updates[i]!.t);
    expect((updates[updates.length - 1]!.t - updates[0]!.t) / gaps.length).toBeCloseTo(NVML_UPDATE_S, 3);
    const seen = new Map(updates.map((u) => [u.mj, u.t]));
    const lags = cap.wattCounter.filter((x) => seen.has(x.energy_mj!)).map((x) => x.t - seen.get(x.energy_mj!)!);
    expect(lags.length).toBeGreaterThan(2500);
    lags.sort((a, b) => a - b);
    const median = lags[lags.length >> 1]!;
    expect(median).toBeGreaterThan(0);
    expect(median).toBeLessThan(NVML_UPDATE_S);
    // One constant: the logger's clock and the updates keep their phase over the 5 minutes.
    expect(lags[Math.floor(lags.length * 0.95)]! - lags[Math.floor(lags.length * 0.05)]!).toBeLessThan(0.01);
  });
});

describe('a WattAMeter counter log imported as a dataset (finding 5: within 1 % on windows of 8 s or more)', () => {
  let tmp = '';
  let engine: Engine;
  let datasetId = 0;
  beforeAll(async () => {
    tmp = mkdtempSync(join(tmpdir(), 'caplab-edges-'));
    engine = await Engine.open({ dbPath: join(tmp, 'lab.db') });
    // The logger stamped UTC wall time without a zone.
    const r = await engine.importDataset({ import_id: 'edges', paths: [join(dir, 'wattameter.log')], format: 'wattameter', tz: 'UTC' });
    datasetId = r.dataset!.id;
  });
  afterAll(async () => {
    await engine.close();
    rmSync(tmp, { recursive: true, force: true });
  });

  it('every phase, loaded and idle right after a load, is within 1 % of the counter, and within its stated bound', async () => {
    for (const p of cap.phases) {
      if (p.end > cap.wattCounter[cap.wattCounter.length - 1]!.t) continue;
      const r = await engine.energyInRange({ from: p.start, to: p.end, dataset_id: datasetId });
      expect(r.sensor).toBe('counter');
      expect(Math.abs(pct(r.energy_j!, p)), p.name).toBeLessThan(1);
      expect(Math.abs(r.energy_j! - p.counter_j), p.name).toBeLessThanOrEqual(r.uncertainty_j!);
    }
  });

  it('taking the readings as fresh puts the load edges late: the idle windows after a load came out up to 2.2 % high', () => {
    const fresh = cap.phases.filter((p) => p.after_load && p.end <= cap.wattCounter[cap.wattCounter.length - 1]!.t).map((p) => pct(windowEnergy(cap.wattCounter, p, { counter_lag_s: 0 }).energy_j!, p));
    const lagged = cap.phases.filter((p) => p.after_load && p.end <= cap.wattCounter[cap.wattCounter.length - 1]!.t).map((p) => pct(windowEnergy(cap.wattCounter, p, { counter_lag_s: COUNTER_READ_LAG_S }).energy_j!, p));
    expect(Math.max(...fresh.map(Math.abs))).toBeGreaterThan(1.5);
    expect(Math.max(...lagged.map(Math.abs))).toBeLessThan(Math.max(...fresh.map(Math.abs)) / 4);
  });
});

/** The counter's energy at x, linear between its updates. */
function counterAt(x: number): number {
  let lo = 0;
  let hi = updates.length - 1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (updates[mid]!.t <= x) lo = mid;
    else hi = mid;
  }
  const a = updates[lo]!;
  const b = updates[hi]!;
  return (a.mj + ((b.mj - a.mj) * (x - a.t)) / (b.t - a.t)) / 1000;
}

describe("the seed query's power.draw at -lms 100 (finding 4: every phase of 8 s or more within 2 %)", () => {
  const worst = (log: typeof cap.seed, only: (p: SignalPhase) => boolean, align?: number) =>
    Math.max(...cap.phases.filter(only).map((p) => Math.abs(pct(windowEnergy(log, p, align === undefined ? {} : { average_align_s: align }).energy_j!, p))));

  it('every phase, the idles right after a load included, is within 2 % of the counter (idle5 was +2.22 %)', () => {
    for (const p of cap.phases) {
      const r = windowEnergy(cap.seed, p);
      expect(r.method).toBe('1 s average, boxcar tiles');
      expect(Math.abs(pct(r.energy_j!, p)), p.name).toBeLessThan(2);
    }
    expect(worst(cap.seed, (p) => p.after_load)).toBeLessThan(1.5);
  });

  it('so are the other 1 s average logs of the capture: nvidia-smi power.draw.average and the WattAMeter mW column', () => {
    expect(worst(cap.average, () => true)).toBeLessThan(2);
    expect(worst(cap.wattPower, () => true)).toBeLessThan(2);
  });

  it('the readings are half an NVML update old against the counter: least squares against its 1 s means gives -0.05 s', () => {
    const inside = cap.seed.filter((x) => x.t > updates[0]!.t + 2 && x.t < updates[updates.length - 1]!.t - 1);
    const sse = (align: number) => inside.reduce((a, x) => a + (counterAt(x.t + align) - counterAt(x.t + align - 1) - x.power_w!) ** 2, 0);
    const grid = Array.from({ length: 41 }, (_, k) => -0.15 + k * 0.005);
    const best = grid.reduce((a, b) => (sse(b) < sse(a) ? b : a));
    expect(best).toBeCloseTo(DENSE_AVERAGE_ENERGY_ALIGN_S, 2);
    // The alignment fitted against the instant channel (read just as stale) misses that age: -0.01 s, up to 2 % off.
    expect(worst(cap.seed, () => true, DENSE_AVERAGE_ALIGN_S)).toBeGreaterThan(1.5);
    expect(worst(cap.seed, () => true, 0.07)).toBeGreaterThan(5);
  });

  it("an ideal 1 s average at the seed's own reading times, from the counter: within 0.7 % with the step's kink fitted, not cut", () => {
    // What is left of the method alone, with no sensor jitter: the readings are the counter's exact 1 s means. A window
    // edge on a step sits on the average's kink; a straight line between the readings around it put every idle after
    // a load +1.0 to +1.9 % high (the cut corner at both edges, always the same sign).
    const a = DENSE_AVERAGE_ENERGY_ALIGN_S;
    const ideal = cap.seed.filter((x) => x.t + a - 1 > updates[0]!.t && x.t + a < updates[updates.length - 1]!.t).map((x) => ({ t: x.t, power_w: counterAt(x.t + a) - counterAt(x.t + a - 1), power_kind: 'average' as const }));
    for (const p of cap.phases) {
      const truth = counterAt(p.end) - counterAt(p.start);
      expect(Math.abs(((windowEnergy(ideal, p).energy_j! - truth) / truth) * 100), p.name).toBeLessThan(0.7);
    }
  });
});
