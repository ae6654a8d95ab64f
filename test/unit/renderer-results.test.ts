// eslint-disable-next-line @typescript-eslint/triple-slash-reference -- the renderer's Plotly typings are ambient and tsconfig.node does not include src/renderer
/// <reference path="../../src/renderer/plotly.d.ts" />
import { describe, expect, it } from 'vitest';
import { analyzeSweep } from '../../src/core/analysis/analyze';
import type { AnalysisInputRaw, AnalysisRunInput, CapPoint } from '../../src/shared/analysis';
import { capSeverity, cardNote, flagDetail, matchGroup, nearestOverhead, optimumValue, rangeText, sortedFlags } from '../../src/shared/analysis-view';
import { legendName, plotlyFigure } from '../../src/renderer/lib/plotly-figure';
import { clockChart, efficiencyChart, paretoChart, throughputChart, type ChartInput } from '../../src/shared/charts';

const traces = (spec: Parameters<typeof plotlyFigure>[0]) => plotlyFigure(spec).data;

// H100 ViT-L/16-like runs (DOMAIN.md figures), 60 s windows sampled at 1 Hz; `power` is the mean GPU power drawn.
function run(id: number, cap: number, rep: number, thr: number, power: number, extra: Partial<AnalysisRunInput> = {}): AnalysisRunInput {
  const t0 = 1000 * id;
  const samples = Array.from({ length: 61 }, (_, i) => ({
    t: t0 + i,
    power_w: power + (i % 2 ? 0.5 : -0.5),
    power_kind: 'instant' as const,
    sm_clock_mhz: 600 + cap * 2,
    limit_w: cap,
    throttle_reasons: cap < 700 ? 0x4 : 0,
  }));
  const steps = Array.from({ length: 60 }, (_, i) => ({ t: t0 + i + 1, units: thr, dt: 1 }));
  return {
    run_id: id, workload: 'vit_l_16', device_model: 'H100 (simulated)', cap_w: cap, repetition: rep, window: { start: t0, end: t0 + 60 }, units: 'images',
    steps, gpus: 1, devices: [{ device_id: 'sim:0', samples }], enforced_limit_w: cap, ...extra,
  };
}

const grid: [number, number, number][] = [
  [200, 116.4, 199],
  [300, 214.9, 298],
  [400, 259.0, 390],
  [500, 280.05, 470],
  [700, 305.97, 620],
];
let id = 1;
const runs = grid.flatMap(([cap, thr, p]) => [1, 2, 3].map((rep) => run(id++, cap, rep, thr * (1 + (rep - 2) * 0.002), p)));
const input: AnalysisInputRaw = { sweep_id: 1, runs, overhead_w: 100 };
const result = analyzeSweep(input, { overhead_w: 100 });
const g = result.groups[0]!;

describe('results page over the engine analysis', () => {
  it('draws efficiency with the analysis’ 95 % CIs as error bars and rings the best cap', () => {
    const [line, ring] = traces(efficiencyChart([{ name: '#1', group: g }]));
    expect(line!.x).toEqual([200, 300, 400, 500, 700]);
    expect(line!.y).toEqual(g.caps.map((c) => c.efficiency.mean));
    const bars = line!.error_y!.array;
    expect(bars).toEqual(g.caps.map((c) => c.efficiency.ci!.half_width));
    expect(bars.every((b) => b! > 0)).toBe(true);
    expect(ring!.x).toEqual([g.optima['max-efficiency'].cap_w]);
    const best = g.optima['max-efficiency'].cap_w!;
    expect(best).toBeGreaterThanOrEqual(300);
    expect(best).toBeLessThanOrEqual(500);
    // Only the primary sweep's best cap is ringed; a compared one adds a line.
    const two: ChartInput[] = [{ name: '#1', group: g }, { name: '#2', group: g }];
    expect(traces(efficiencyChart(two)).map((t) => t.name)).toEqual(['#1', '#2', 'best cap']);
    expect(traces(throughputChart([{ name: '#1', group: g }]))[0]!.error_y!.array).toEqual(g.caps.map((c) => c.throughput.ci!.half_width));
  });

  it('draws each of up to nine compared sweeps in its own colour, none a warning or best-cap colour', () => {
    const nine: ChartInput[] = Array.from({ length: 9 }, (_, i) => ({ name: `#${i + 1}`, group: g }));
    const lines = traces(efficiencyChart(nine)).filter((t) => t.name !== 'best cap');
    const colours = lines.map((t) => (t.line as { color: string }).color);
    expect(new Set(colours).size).toBe(9);
    for (const c of colours) expect(['#f28e2b', '#e15759', '#edc948']).not.toContain(c);
  });

  it('breaks a long legend entry at its separators so it is not cut at the chart edge', () => {
    const long = '#3 · e2e three-way comparison of ViT-L/16 caps charlie · NVIDIA H100 80GB HBM3 (sim) · cancelled';
    expect(legendName(long)).toBe('#3 · e2e three-way comparison of ViT-L/16 caps charlie<br>· NVIDIA H100 80GB HBM3 (sim) · cancelled');
    for (const line of legendName(long).split('<br>')) expect(line.length).toBeLessThanOrEqual(60);
    expect(legendName('#1 · short · H100 (sim)')).toBe('#1 · short · H100 (sim)');
    expect(traces(efficiencyChart([{ name: long, group: g }, { name: '#4', group: g }]))[0]!.name).toContain('<br>');
  });

  it('plots the engine’s Pareto front and clocks with the power-cap throttle share', () => {
    const [off, front] = traces(paretoChart([{ name: '#1', group: g }]));
    expect(front!.x).toEqual(g.pareto.front.map((p) => p.throughput));
    expect((off!.x as number[]).length + (front!.x as number[]).length).toBe(g.pareto.points.length);
    const clocks = clockChart(g);
    expect(clocks.y2!.unit).toBe('% of window');
    const [bars, clock] = traces(clocks);
    expect(bars!.yaxis).toBe('y2');
    expect(clock!.y).toEqual(g.caps.map((c) => c.clocks.sm_mhz));
    expect(bars!.y).toEqual(g.caps.map((c) => c.clocks.power_cap_throttled_share! * 100));
    expect(bars!.y).toContain(0);
    expect(bars!.y).toContain(100);
  });

  it('words each selector’s best cap with the caps within the margin, worse, or not yet known', () => {
    const o = g.optima['max-efficiency'];
    expect(optimumValue(o, 'images')).toMatch(/images\/J$/);
    expect(optimumValue(g.optima['min-energy-slowdown'], 'images')).toMatch(/J per image .*% slower than 700 W/);
    expect(rangeText(o)).toMatch(/within 2 %|no other cap shown within 2 %/);
    expect(rangeText(o)).toMatch(/Bonferroni/);
    const eq = { ...o.equivalence!, equivalent_caps: [400], undetermined_caps: [500], worse_caps: [200], caps: [] };
    const wide = { ...o, cap_w: 300, indistinguishable_caps: [300, 400, 500], range_w: [300, 500] as [number, number], equivalence: eq };
    expect(rangeText(wide)).toBe(`within 2 %: 400 W; too few repetitions to tell: 500 W; worse by more than 2 %: 200 W (${eq.correction}, family-wise 95 %)`);
    const needs = { ...eq, caps: [{ cap_w: 500, verdict: 'undetermined' as const, rel_diff: -0.01, ci: [-0.03, 0.01] as [number, number], repetitions_needed: 6 }] };
    expect(rangeText({ ...wide, equivalence: needs })).toContain('too few repetitions to tell: 500 W (about 6 per cap would)');
    const shaded = (opt: typeof wide) => efficiencyChart([{ name: '#1', group: { ...g, optima: { ...g.optima, 'max-efficiency': opt } } }]).bands;
    expect(shaded(wide)).toEqual([{ from: 300, to: 500, label: expect.stringMatching(/may be the best/) }]);
    expect(shaded({ ...o, range_w: [300, 300] } as typeof wide)).toEqual([]);
    expect(rangeText({ ...o, indistinguishable_caps: null, equivalence: null })).toMatch(/not testable/);
  });

  it('says the equivalence statement once per card: in the range line, not again in the note', () => {
    const o = g.optima['min-energy-slowdown'];
    const statement = o.equivalence!.statement;
    expect(o.note).toContain(statement);
    const note = cardNote(o);
    expect(note ?? '').not.toContain(statement);
    expect(note).toMatch(/slowdown budget/);
    expect(cardNote({ ...o, note: statement })).toBeNull();
    expect(cardNote({ ...o, equivalence: null })).toBe(o.note);
  });

  it('flags a cap that was not enforced, excludes it from the best cap and marks it on the plot', () => {
    const bad = [...runs, ...[1, 2].map((rep) => run(100 + rep, 250, rep, 240, 330, { enforced_limit_w: 400 }))];
    const r = analyzeSweep({ ...input, runs: bad }, { overhead_w: 100 });
    const cap = r.groups[0]!.caps.find((c) => c.cap_w === 250)!;
    expect(cap.flags).toContain('not-enforced');
    expect(cap.eligible).toBe(false);
    expect(capSeverity(cap)).toBe('error');
    expect(sortedFlags(cap.flags)[0]).not.toBe('single-repetition');
    expect(flagDetail(cap, 'not-enforced').length).toBeGreaterThan(5);
    const line = traces(efficiencyChart([{ name: '#1', group: r.groups[0]! }]))[0]!;
    const i = (line.x as number[]).indexOf(250);
    expect((line.marker!.symbol as string[])[i]).toBe('x');
    expect((line.marker!.color as string[])[i]).toBe('#e15759');
    expect(r.groups[0]!.optima['max-efficiency'].cap_w).not.toBe(250);
  });

  it('explains high variance with the coefficients of variation', () => {
    const cap = { ...g.caps[0]!, flags: ['high-variance'], throughput: { ...g.caps[0]!.throughput, cv: 0.08 } } as CapPoint;
    expect(flagDetail(cap, 'high-variance')).toMatch(/throughput CV 8\.0 %/);
  });

  it('matches the same workload in a compared sweep and picks the sensitivity column', () => {
    expect(matchGroup(result.groups, { workload: 'vit_l_16', device_model: 'other GPU' })).toBe(g);
    expect(matchGroup([g, { ...g, workload: 'x' }], { workload: 'llama', device_model: '?' })).toBeNull();
    expect(nearestOverhead([0, 50, 100, 150], 120)).toBe(100);
    expect(nearestOverhead([0, 50], 400)).toBe(50);
  });
});
