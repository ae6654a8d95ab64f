// Issue #25's real H200 capture (test/fixtures/h200-signal/): ResNet-50, ViT-L/16 and a LLaMA-shaped decoder training
// for 20-30 s with 8-12 s idle between, logged at 100 ms by nvidia-smi (the seed query's power.draw; power.draw.instant
// and .average) and a WattAMeter-style counter log, against the energy counter read at every phase edge.
import { describe, expect, it } from 'vitest';
import { AVERAGE_STEP_LAG_S, DENSE_AVERAGE_ALIGN_S, fitAverageAlign, NVML_UPDATE_S } from '../../../src/core/analysis/average-power';
import { windowEnergy } from '../../../src/core/analysis/energy';
import { binMeans, detectPhases } from '../../../src/core/segments';
import { loadH200Signal, type SignalPhase } from '../../helpers/h200-signal';

const cap = loadH200Signal();
const pct = (e: number, p: SignalPhase) => ((e - p.counter_j) / p.counter_j) * 100;
const logs = { seed: cap.seed, 'power.draw.average': cap.average, 'wattameter mW': cap.wattPower };

describe('the H200 capture of issue #25', () => {
  it('has 6 load phases and 7 idle phases of 8 s or more, 6 of them right after a load', () => {
    expect(cap.phases.filter((p) => p.kind === 'load')).toHaveLength(6);
    expect(cap.phases.filter((p) => p.after_load)).toHaveLength(6);
    expect(cap.phases.every((p) => p.end - p.start >= 7.9)).toBe(true);
    expect(cap.seed.length).toBeGreaterThan(2000);
  });

  it('NVML readings change every ~100 ms: the two nvidia-smi logs hold the same values, first seen up to 0.1 s apart', () => {
    const first = (s: typeof cap.seed) => {
      const m = new Map<number, number>();
      for (const x of s) if (!m.has(x.power_w!)) m.set(x.power_w!, x.t);
      return m;
    };
    const a = first(cap.seed);
    const b = first(cap.average);
    const shared = [...a.keys()].filter((v) => b.has(v));
    expect(shared.length / a.size).toBeGreaterThan(0.95);
    // A value seen again later (the same reading twice in a load) aside, first sightings differ by one update at most.
    const d = shared.map((v) => Math.abs(a.get(v)! - b.get(v)!));
    expect(d.filter((x) => x <= NVML_UPDATE_S + 0.01).length / d.length).toBeGreaterThan(0.98);
    expect(d.filter((x) => x > 0.05).length).toBeGreaterThan(d.length / 10);
  });

  it('the dense alignment is what the instant channel gives, not the counter', () => {
    const pts = (s: typeof cap.seed) => s.map((x) => ({ t: x.t, v: x.power_w! }));
    expect(fitAverageAlign(pts(cap.instant), pts(cap.average))).toBeCloseTo(DENSE_AVERAGE_ALIGN_S, 5);
  });
});

describe('energy from 1 s averages read ten times a second (finding 4)', () => {
  // This capture's marks are the counter read at arbitrary instants, each up to one NVML update (100 ms) stale
  // (h200-signal-2026-12-03.md): the truth itself is off by up to that much of the step at each edge, on top of the
  // method's 2 % and its stated edge bound. The edge-exact capture (test/integration/h200-signal-edges.test.ts) holds
  // the methods to 2 % alone.
  const level = (x: number) => {
    const near = cap.instant.filter((s) => s.t > x - 0.3 && s.t < x + 0.3);
    return near.length ? near.reduce((a, s) => a + s.power_w!, 0) / near.length : null;
  };
  // The step at an edge, from the instant readings beside it (none past the end of the logs: no step there).
  const step = (x: number) => Math.abs((level(x + 0.4) ?? level(x - 0.4)!) - level(x - 0.4)!);
  const markStaleJ = (p: SignalPhase) => NVML_UPDATE_S * (step(p.start) + step(p.end));
  for (const [name, log] of Object.entries(logs))
    it(`${name}: loaded phases within 0.5 % of the counter; every phase within 2 % plus its stated edge bound and the marks' staleness`, () => {
      for (const p of cap.phases) {
        const r = windowEnergy(log, p);
        expect(r.method).toBe('1 s average, boxcar tiles');
        if (p.kind === 'load') expect(Math.abs(pct(r.energy_j!, p))).toBeLessThan(0.5);
        expect(Math.abs(r.energy_j! - p.counter_j), p.name).toBeLessThanOrEqual(0.02 * p.counter_j + (r.edge_uncertainty_j ?? 0) + markStaleJ(p));
      }
    });
});

describe('energy from the counter read every 100 ms (finding 5)', () => {
  it('is within 1 % on the loaded phases, and the marks lie within its edge bound on every phase', () => {
    for (const p of cap.phases) {
      const r = windowEnergy(cap.wattCounter, p);
      expect(r.method).toBe('energy-counter delta');
      if (p.kind === 'load') expect(Math.abs(pct(r.energy_j!, p))).toBeLessThan(1);
      expect(Math.abs(r.energy_j! - p.counter_j)).toBeLessThanOrEqual(r.edge_uncertainty_j!);
    }
  });

  it('a counter log read on a steady clock is stale by one constant: the load edges sit 66 ms late in it', () => {
    const w = cap.wattCounter.map((x) => ({ t: x.t, e: x.energy_mj! / 1000 }));
    const power = (k: number) => (w[k + 1]!.e - w[k]!.e) / (w[k + 1]!.t - w[k]!.t);
    const late: number[] = [];
    for (const m of cap.marks.filter((x) => /^\d+_.*_(start|end)$/.test(x.name))) {
      const k = w.findIndex((x, i) => i > 1 && w[i + 1] && w[i + 1]!.t > m.t && (power(i - 1) - power(i)) * (power(i) - power(i + 1)) > 0 && Math.abs(power(i - 1) - power(i + 1)) > 300);
      late.push(w[k]!.t + ((power(k) - power(k + 1)) / (power(k - 1) - power(k + 1))) * (w[k + 1]!.t - w[k]!.t) - m.t);
    }
    expect(late).toHaveLength(12);
    for (const x of late) expect(x).toBeCloseTo(0.066, 1);
  });
});

describe('phases of the seed log (finding 3)', () => {
  // One sample interval, and the readings' own staleness of up to one 100 ms update.
  it('finds the 13 phases, each edge within 0.2 s of the counter mark', () => {
    const b = binMeans(
      cap.seed.map((x) => x.t),
      cap.seed.map((x) => x.power_w!),
      4000,
    );
    const phases = detectPhases(b.t, b.v, b.width, { lag_s: AVERAGE_STEP_LAG_S, min_step: 5 });
    expect(phases).toHaveLength(13);
    phases.slice(1).forEach((p, i) => expect(Math.abs(p.start - cap.phases[i + 1]!.start)).toBeLessThanOrEqual(0.2));
  });
});
