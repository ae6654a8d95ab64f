import { describe, expect, it } from 'vitest';
import { findPreset, PRESET_IDS, type GpuPreset } from '../../src/core/sim/presets';
import { findWorkload, resolveParams, SimConfigError, WORKLOAD_IDS, type SimParams, type WorkloadModel } from '../../src/core/sim/workloads';
import { operatingPoint, warmupEndS, type OperatingPoint } from '../../src/core/sim/model';
import { advanceTempC, steadyTempC } from '../../src/core/sim/thermal';
import { gaussian, uniform } from '../../src/core/sim/random';

const OVERHEAD_W = 100;
const CAPS = [200, 300, 400, 500, 600, 700];
/** Published H100 per-GPU throughput at the caps above (DOMAIN.md). */
const PUBLISHED: Record<string, number[]> = {
  vit_l_16: [116.4, 214.9, 259.0, 280.05, 297.79, 305.97],
  llama_pretrain: [9699.3, 17982.3, 24853.4, 27705.3, 29250.0, 30271.0],
};

function preset(id: string): GpuPreset {
  const p = findPreset(id);
  if (!p) throw new Error(`no preset ${id}`);
  return p;
}
function workload(id: string): WorkloadModel {
  const w = findWorkload(id);
  if (!w) throw new Error(`no workload ${id}`);
  return w;
}

/** Long after warm-up, at the temperature the power settles to. */
function steady(presetId: string, workloadId: string, cap_w: number, params: SimParams = {}): OperatingPoint {
  const p = preset(presetId);
  const w = workload(workloadId);
  const load = { workload: w, params: resolveParams(w, params), elapsed_s: 3600 };
  let op = operatingPoint({ preset: p, load, cap_w, temp_c: 50 });
  for (let i = 0; i < 20; i++) op = operatingPoint({ preset: p, load, cap_w, temp_c: steadyTempC(p, op.power_w) });
  return op;
}

const efficiency = (op: OperatingPoint) => op.throughput / (op.power_w + OVERHEAD_W);

/** Efficiency over the preset's whole limit range in 10 W steps: the peak cap and the ratios at both ends. */
function curve(presetId: string, workloadId: string) {
  const p = preset(presetId);
  const points: { cap: number; eff: number }[] = [];
  for (let cap = p.limits.min_w; cap <= p.limits.max_w; cap += 10) points.push({ cap, eff: efficiency(steady(presetId, workloadId, cap)) });
  const peak = points.reduce((a, b) => (b.eff > a.eff ? b : a));
  return { peakCap: peak.cap, atMin: points[0]!.eff / peak.eff, atMax: points[points.length - 1]!.eff / peak.eff };
}

describe('simulated H100 calibration', () => {
  for (const [id, published] of Object.entries(PUBLISHED)) {
    it(`${id}: throughput per GPU within 5 % of the published value at every cap`, () => {
      CAPS.forEach((cap, i) => {
        const sim = steady('h100-sxm', id, cap).throughput;
        expect(Math.abs(sim / published[i]! - 1), `${id} at ${cap} W: sim ${sim.toFixed(1)} vs ${published[i]}`).toBeLessThan(0.05);
      });
    });

    it(`${id}: efficiency (100 W overhead) is hill-shaped with its peak between 300 and 500 W`, () => {
      const c = curve('h100-sxm', id);
      expect(c.peakCap).toBeGreaterThanOrEqual(300);
      expect(c.peakCap).toBeLessThanOrEqual(500);
      expect(c.atMin).toBeLessThan(0.9);
      expect(c.atMax).toBeLessThan(0.9);
    });
  }

  it('draws at most the cap when the cap binds, and flags it', () => {
    for (const cap of [200, 400, 600]) {
      const op = steady('h100-sxm', 'llama_pretrain', cap);
      expect(op.power_w).toBeLessThanOrEqual(cap);
      expect(op.power_w).toBeGreaterThan(cap * 0.98);
      expect(op.cap_binding).toBe(true);
    }
    // ViT's demand stays under 700 W: the cap does not bind there.
    const free = steady('h100-sxm', 'vit_l_16', 700);
    expect(free.cap_binding).toBe(false);
    expect(free.sm_clock_mhz).toBe(1980);
  });
});

describe('other presets', () => {
  it('H200: peak a little higher and the curve flatter at high power than the H100', () => {
    for (const id of ['vit_l_16', 'llama_pretrain']) {
      const h100 = curve('h100-sxm', id);
      const h200 = curve('h200', id);
      expect(h200.peakCap, id).toBeGreaterThan(h100.peakCap);
      expect(h200.peakCap - h100.peakCap, id).toBeLessThanOrEqual(100);
      expect(h200.atMax, id).toBeGreaterThan(h100.atMax);
    }
  });

  it('MI300X: caps below 400 W are accepted but power stays near 400 W', () => {
    for (const cap of [200, 300, 350]) {
      const op = steady('mi300x', 'llama_pretrain', cap);
      expect(op.enforced_cap_w).toBe(400);
      expect(op.power_w).toBeGreaterThan(390);
      expect(op.power_w).toBeLessThanOrEqual(400);
    }
    const enforced = steady('mi300x', 'llama_pretrain', 500);
    expect(enforced.power_w).toBeLessThanOrEqual(500);
    expect(enforced.power_w).toBeGreaterThan(490);
  });

  it('every preset runs every workload plausibly: power within idle..max limit, throughput rising with the cap', () => {
    for (const pid of PRESET_IDS) {
      const p = preset(pid);
      for (const wid of WORKLOAD_IDS) {
        const low = steady(pid, wid, p.limits.min_w);
        const high = steady(pid, wid, p.limits.max_w);
        expect(high.throughput, `${pid} ${wid}`).toBeGreaterThan(0);
        expect(high.throughput, `${pid} ${wid}`).toBeGreaterThanOrEqual(low.throughput);
        expect(high.power_w, `${pid} ${wid}`).toBeGreaterThan(p.idle_w);
        expect(high.power_w, `${pid} ${wid}`).toBeLessThanOrEqual(p.limits.max_w);
        expect(high.sm_clock_mhz).toBeLessThanOrEqual(p.sm_clock_mhz.max);
      }
    }
  });

  it('a workstation card is slower than an H100 at full power', () => {
    expect(steady('rtx-4090', 'vit_l_16', 450).throughput).toBeLessThan(steady('h100-sxm', 'vit_l_16', 700).throughput / 2);
  });
});

describe('warm-up, idle and temperature', () => {
  const p = preset('h100-sxm');
  const w = workload('vit_l_16');
  const params = resolveParams(w, {});
  const at = (elapsed_s: number) => operatingPoint({ preset: p, load: { workload: w, params, elapsed_s }, cap_w: 700, temp_c: 50 });

  it('starts with no steps and near-idle power, then ramps power and throughput to steady state', () => {
    const init = at(1);
    expect(init.initializing).toBe(true);
    expect(init.step_s).toBeNull();
    expect(init.power_w).toBeLessThan(0.2 * at(600).power_w);
    const first = at(w.init_s + 0.1);
    const steadyOp = at(600);
    expect(first.throughput).toBeLessThan(0.7 * steadyOp.throughput);
    expect(first.power_w).toBeLessThan(0.8 * steadyOp.power_w);
    let last = 0;
    for (let t = w.init_s; t < warmupEndS(w); t += 1) {
      expect(at(t).power_w).toBeGreaterThan(last);
      last = at(t).power_w;
    }
    expect(at(warmupEndS(w) + 0.1).throughput).toBeGreaterThan(0.99 * steadyOp.throughput);
  });

  it('shows start-up from process start as a real GPU does: power rising from idle, low utilisation, no steps', () => {
    const idle = operatingPoint({ preset: p, load: null, cap_w: 700, temp_c: 50 });
    const points = [0, 0.25, 0.5, 0.75, 0.99].map((f) => at(f * w.init_s));
    expect(points[0]!.power_w).toBeGreaterThan(idle.power_w);
    for (let i = 1; i < points.length; i++) expect(points[i]!.power_w).toBeGreaterThan(points[i - 1]!.power_w);
    // Well off idle before the first step (no idle stretch up to it), yet below the first step's power.
    expect(points[3]!.power_w - idle.power_w).toBeGreaterThan(0.1 * (at(600).power_w - idle.power_w));
    expect(points[4]!.power_w).toBeLessThan(at(w.init_s + 0.1).power_w);
    for (const op of points) {
      expect(op.initializing).toBe(true);
      expect(op.step_s).toBeNull();
      expect(op.util_gpu).toBeLessThanOrEqual(20);
    }
  });

  it('idles at the preset idle power and idle clock', () => {
    const idle = operatingPoint({ preset: p, load: null, cap_w: 700, temp_c: 35 });
    expect(idle.power_w).toBe(p.idle_w);
    expect(idle.sm_clock_mhz).toBe(345);
    expect(idle.util_gpu).toBe(0);
  });

  it('relaxes temperature towards steady state with the preset time constant', () => {
    const target = steadyTempC(p, 600);
    const afterTau = advanceTempC(p, 35, 600, p.thermal.tau_s);
    expect((afterTau - 35) / (target - 35)).toBeCloseTo(1 - Math.exp(-1), 6);
  });

  it('cools from a load to within 5 °C of idle in 2-4 s on the SXM5 cards, as the real H200 did', () => {
    // bench/results/h200-adaptive-2026-12-03.md: 2-4 s after 585-613 W loads, read every second here.
    for (const id of ['h100-sxm', 'h200']) {
      const q = preset(id);
      for (const load_w of [585, 613, 700]) {
        let temp = steadyTempC(q, load_w);
        let t = 0;
        while (temp - steadyTempC(q, q.idle_w) > 5) {
          temp = advanceTempC(q, temp, q.idle_w, 1);
          t += 1;
        }
        expect(t, `${id} after ${load_w} W`).toBeGreaterThanOrEqual(2);
        expect(t, `${id} after ${load_w} W`).toBeLessThanOrEqual(4);
      }
    }
  });

  it('slows the clock above the slowdown temperature', () => {
    const hot = operatingPoint({ preset: p, load: { workload: w, params, elapsed_s: 600 }, cap_w: 700, temp_c: p.thermal.slowdown_c + 5 });
    expect(hot.thermal_slowdown).toBe(true);
    expect(hot.throughput).toBeLessThan(at(600).throughput);
  });
});

describe('parameters and determinism', () => {
  const w = workload('llama_pretrain');

  it('resolves batch_size and seq_len, rejects nonsense', () => {
    expect(resolveParams(w, { batch_size: 8, seq_len: '1024' })).toEqual({ batch_size: 8, item_units: 1024 });
    expect(() => resolveParams(w, { batch_size: 'lots' })).toThrow(SimConfigError);
    expect(() => resolveParams(w, { batch_size: 0 })).toThrow(/batch_size/);
    // Parameters only real workloads understand are left alone.
    expect(resolveParams(w, { precision: 'bf16' }).batch_size).toBe(w.default_batch);
  });

  it('smaller batches run a little slower per GPU', () => {
    const full = steady('h100-sxm', 'vit_l_16', 700).throughput;
    const half = steady('h100-sxm', 'vit_l_16', 700, { batch_size: 64 }).throughput;
    expect(half).toBeLessThan(full);
    expect(half).toBeGreaterThan(0.9 * full);
  });

  it('is a pure function of its inputs; noise depends only on seed and keys', () => {
    expect(steady('h200', 'sd_unet', 450)).toEqual(steady('h200', 'sd_unet', 450));
    expect(gaussian(7, 1, 2)).toBe(gaussian(7, 1, 2));
    expect(gaussian(7, 1, 2)).not.toBe(gaussian(8, 1, 2));
    const draws = Array.from({ length: 4000 }, (_, i) => gaussian(3, i));
    const mean = draws.reduce((a, b) => a + b, 0) / draws.length;
    const sd = Math.sqrt(draws.reduce((a, b) => a + (b - mean) ** 2, 0) / draws.length);
    expect(Math.abs(mean)).toBeLessThan(0.08);
    expect(sd).toBeGreaterThan(0.9);
    expect(sd).toBeLessThan(1.1);
    for (let i = 0; i < 100; i++) {
      const u = uniform(5, i, 1e10 + i);
      expect(u).toBeGreaterThanOrEqual(0);
      expect(u).toBeLessThan(1);
    }
  });
});
