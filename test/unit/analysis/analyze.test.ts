// analyzeSweep on awkward input: single repetitions, unenforced caps, empty windows, missing sensors, NaN readings,
// failed runs, measured CPU energy, drift. Explicit results, never a crash.
import { describe, expect, it } from 'vitest';
import { analyzeSweep } from '../../../src/core/analysis/analyze';
import { AnalysisResult, type AnalysisRunInput } from '../../../src/shared/analysis';
import { H100_VIT, paperSweep, powerSeries } from './synth';

describe('single repetition', () => {
  const r = analyzeSweep({ runs: paperSweep({ workload: 'vit', throughput: H100_VIT }) });
  const g = r.groups[0]!;
  it('no CI anywhere, and each cap says why', () => {
    for (const c of g.caps) {
      expect(c.efficiency.ci).toBeNull();
      expect(c.efficiency.note).toMatch(/single repetition/);
      expect(c.flags).toContain('single-repetition');
    }
    expect(g.notes.join()).toMatch(/single repetition/);
  });
  it('the optimum is given without an indistinguishability claim', () => {
    expect(g.best.cap_w).toBe(300);
    expect(g.best.indistinguishable_caps).toBeNull();
    expect(g.best.note).toMatch(/single repetition/);
  });
});

describe('caps that were not enforced (the MI300X case)', () => {
  // At the 200 W cap the device ignores the cap: it draws what it draws at 300 W (0.97 x 300) and runs as fast as
  // at 300 W. Taken at face value, "200 W" would tie with 300 W and win the tie as the lower cap.
  const runs = paperSweep({ workload: 'vit', throughput: [214.9, ...H100_VIT.slice(1)], factors: [0.99, 1, 1.01], powerAt: (c) => 0.97 * (c === 200 ? 300 : c) });
  it('are flagged and excluded from the optimum by default', () => {
    const g = analyzeSweep({ runs }).groups[0]!;
    const c200 = g.caps.find((c) => c.cap_w === 200)!;
    expect(c200.enforcement.enforced).toBe(false);
    expect(c200.flags).toEqual(expect.arrayContaining(['not-enforced', 'power-above-cap', 'excluded']));
    expect(c200.enforcement.mean_w).toBeCloseTo(291, 6); // > 200 x 1.05 + 5 = 215 W
    expect(c200.eligible).toBe(false);
    expect(g.best.cap_w).toBe(300);
    expect(g.best.excluded_caps[0]).toMatchObject({ cap_w: 200 });
    expect(g.best.excluded_caps[0]!.reason).toMatch(/not enforced/);
    expect(g.pareto.points.some((p) => p.cap_w === 200)).toBe(false);
    expect(g.notes.join()).toMatch(/caps not enforced: 200 W \(excluded/);
  });
  it('and kept only when asked', () => {
    const g = analyzeSweep({ runs }, { include_unenforced: true }).groups[0]!;
    expect(g.best.cap_w).toBe(200);
    expect(g.caps[0]!.flags).toContain('not-enforced');
  });
  it('a reported limit that differs from the request also counts', () => {
    const rs = paperSweep({ workload: 'vit', throughput: H100_VIT }).map((r) => (r.cap_w === 700 ? { ...r, enforced_limit_w: 650 } : r));
    const c700 = analyzeSweep({ runs: rs }).groups[0]!.caps.at(-1)!;
    expect(c700.enforcement.flags).toContain('limit-mismatch');
    expect(c700.eligible).toBe(false);
  });
});

describe('bad runs', () => {
  const good = paperSweep({ workload: 'vit', throughput: H100_VIT, factors: [0.99, 1, 1.01] });
  const at = (cap: number, rep: number) => good.find((r) => r.cap_w === cap && r.repetition === rep)!;
  const bad: AnalysisRunInput[] = [
    ...good.filter((r) => !(r.cap_w === 300 && r.repetition === 3) && !(r.cap_w === 400 && r.repetition === 3) && !(r.cap_w === 500 && r.repetition === 3)),
    // empty window
    { ...at(300, 3), window: { start: 5, end: 5 } },
    // no devices at all (missing sensors)
    { ...at(400, 3), devices: [] },
    // failed run
    { ...at(500, 3), status: 'failed' },
    // a run with no window (crashed before measuring)
    { run_id: 99, workload: 'vit', device_model: 'H100 SXM', cap_w: 600, repetition: 4, window: null, status: 'failed' },
  ];
  // NaN and negative readings in one good run
  const noisy = bad.find((r) => r.cap_w === 200 && r.repetition === 1)!;
  noisy.devices = noisy.devices!.map((d) => ({ ...d, samples: d.samples!.map((s, i) => (i % 50 === 7 ? { ...s, power_w: i % 100 === 7 ? NaN : -3 } : s)) }));
  const r = analyzeSweep({ runs: bad });
  const g = r.groups[0]!;
  it('completes, validates and explains every unusable run', () => {
    expect(() => AnalysisResult.parse(r)).not.toThrow();
    const byId = (id: number) => r.runs.find((x) => x.run_id === id)!;
    expect(byId(at(300, 3).run_id as number).flags).toContain('empty-window');
    expect(byId(at(400, 3).run_id as number).flags).toContain('missing-energy');
    expect(byId(at(500, 3).run_id as number).flags).toContain('run-failed');
    expect(byId(99).flags).toEqual(expect.arrayContaining(['run-failed', 'no-window']));
    expect(r.runs.filter((x) => !x.usable)).toHaveLength(4);
    expect(r.warnings.join()).toMatch(/4 of 19 runs not usable/);
  });
  it('drops NaN/negative readings with a flag and still gets the energy right', () => {
    const n = r.runs.find((x) => x.cap_w === 200 && x.repetition === 1)!;
    expect(n.flags).toContain('bad-readings');
    expect(n.mean_power_w).toBeCloseTo(194, 6);
    expect(g.caps[0]!.flags).toContain('bad-readings');
  });
  it('statistics use the usable runs only', () => {
    const c300 = g.caps.find((c) => c.cap_w === 300)!;
    expect(c300.n_usable).toBe(2);
    expect(c300.efficiency.ci!.t).toBeCloseTo(12.7062047, 6);
    expect(g.best.cap_w).toBe(300);
  });
  it('empty input', () => {
    const e = analyzeSweep({ runs: [] });
    expect(e.groups).toEqual([]);
    expect(e.warnings).toEqual(['no runs to analyse']);
  });
  it('malformed input is a schema error, not a crash later on', () => {
    expect(() => analyzeSweep({ runs: [{ run_id: 1 }] } as never)).toThrow(/workload|cap_w|window/);
    expect(() => analyzeSweep({ runs: [] }, { selector: 'fastest' } as never)).toThrow();
  });
});

describe('node energy from measured CPU (RAPL)', () => {
  it('replaces the overhead where every CPU series has energy', () => {
    const runs = paperSweep({ workload: 'vit', throughput: H100_VIT }).map((r) => ({
      ...r,
      // 150 W CPU package, RAPL-style counter (mJ) wrapping at 262143 J
      cpu: [
        {
          device_id: 'cpu0',
          counter_wrap_mj: 262_143_000,
          samples: powerSeries(() => 0, r.window!.start - 1, r.window!.end + 1, 0.5, 'instant', (t) => ({ power_w: null, energy_mj: (150_000 * (t - 1_000_000)) % 262_143_000 })),
        },
      ],
    }));
    const res = analyzeSweep({ runs }, { overhead_w: 100 });
    const run = res.runs[1]!; // 300 W
    expect(run.node!.source).toBe('measured-cpu');
    expect(run.node!.cpu_j).toBeCloseTo(150 * 60, 3);
    // 214.9 x 60 / ((291 + 150) x 60) = 0.487302 images/J
    expect(run.efficiency).toBeCloseTo(214.9 / 441, 6);
    expect(res.groups[0]!.notes[0]).toMatch(/measured CPU in 6 of 6 runs/);
    // 400 vs 300 at 150 W "overhead": 259/538 = 0.48141 < 0.48730 -> still 300 W
    expect(res.groups[0]!.best.cap_w).toBe(300);
    // use_measured_cpu: false goes back to the overhead
    expect(analyzeSweep({ runs }, { use_measured_cpu: false }).runs[1]!.node!.source).toBe('overhead');
  });
});

describe('drift across repetitions', () => {
  it('temperature rising with each repetition is flagged for the sweep', () => {
    const runs = paperSweep({ workload: 'vit', throughput: H100_VIT, factors: [1, 1, 1, 1] }).map((r) => ({
      ...r,
      devices: r.devices!.map((d) => ({ ...d, samples: d.samples!.map((s) => ({ ...s, temp_c: 50 + 2 * (r.repetition ?? 1) + ((r.cap_w % 300) / 100) * 0.3 })) })),
    }));
    const g = analyzeSweep({ runs }).groups[0]!;
    // +2 °C per repetition, 6 °C over 4 repetitions, exactly linear
    expect(g.drift.temp_c!.flagged).toBe(true);
    expect(g.drift.temp_c!.change).toBeCloseTo(6, 9);
    expect(g.drift.flagged).toBe(true);
    expect(g.drift.throughput!.flagged).toBe(false);
  });
  it('throughput falling across repetitions is flagged per cap', () => {
    const g = analyzeSweep({ runs: paperSweep({ workload: 'vit', throughput: H100_VIT, factors: [1.06, 1.02, 0.98, 0.94] }) }).groups[0]!;
    expect(g.caps.every((c) => c.flags.includes('drift'))).toBe(true);
    expect(g.caps.every((c) => c.flags.includes('high-variance'))).toBe(true);
    expect(g.drift.throughput!.flagged).toBe(true);
  });
});

describe('runs flagged no-steady-state or warmup-in-window', () => {
  // One 400 W run's window starts 1 s into the warm-up (power and throughput still ramping) and claims 50 % more
  // work: taken at face value it makes 400 W the best cap.
  const runs = paperSweep({ workload: 'vit', throughput: H100_VIT, factors: [0.99, 1, 1.01] });
  const bad = runs.find((r) => r.cap_w === 400 && r.repetition === 1)!;
  bad.window = { start: bad.started_at! + 1, end: bad.window!.end };
  bad.units_in_window = bad.units_in_window! * 1.5;
  it('are left out of the statistics, best cap, Pareto front and sensitivity by default, and the exclusion is shown', () => {
    const r = analyzeSweep({ runs });
    const flagged = r.runs.find((x) => x.run_id === bad.run_id)!;
    expect(flagged.flags.some((f) => f === 'warmup-in-window' || f === 'no-steady-state')).toBe(true);
    const g = r.groups[0]!;
    const c400 = g.caps.find((c) => c.cap_w === 400)!;
    expect(c400.excluded_runs).toEqual([{ run_id: bad.run_id, reason: expect.stringMatching(/warmup-in-window|no-steady-state/) }]);
    expect(c400.n_usable).toBe(2);
    expect(g.best.cap_w).toBe(300);
    expect(g.notes.join()).toMatch(new RegExp(`#${bad.run_id} at 400 W`));
    // Everything decided is what the sweep without that run decides.
    const without = analyzeSweep({ runs: runs.filter((x) => x !== bad) }).groups[0]!;
    expect(g.sensitivity.table).toEqual(without.sensitivity.table);
    expect(g.pareto).toEqual(without.pareto);
    expect(g.optima).toEqual(without.optima);
  });
  it('count again with include_flagged', () => {
    const g = analyzeSweep({ runs }, { include_flagged: true }).groups[0]!;
    expect(g.caps.find((c) => c.cap_w === 400)!.excluded_runs).toEqual([]);
    expect(g.caps.find((c) => c.cap_w === 400)!.n_usable).toBe(3);
    expect(g.best.cap_w).toBe(400);
  });
});
