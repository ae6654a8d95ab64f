import { describe, expect, it } from 'vitest';
import { analyzeSweep } from '../../../src/core/analysis/analyze';
import type { AnalysisRunInput } from '../../../src/shared/analysis';
import { clockChart, efficiencyChart } from '../../../src/shared/charts';
import { chartSvg, niceTicks, tickText } from '../../../src/core/report/svg';
import { renderReport } from '../../../src/core/report/html';
import type { ReportInput } from '../../../src/core/report/model';

function run(id: number, cap: number, rep: number, thr: number, power: number, extra: Partial<AnalysisRunInput> = {}): AnalysisRunInput {
  const t0 = 1000 * id;
  const samples = Array.from({ length: 61 }, (_, i) => ({ t: t0 + i, power_w: power + (i % 2 ? 0.5 : -0.5), power_kind: 'instant' as const, sm_clock_mhz: 600 + cap * 2, limit_w: cap, throttle_reasons: cap < 500 ? 0x4 : 0 }));
  const steps = Array.from({ length: 60 }, (_, i) => ({ t: t0 + i + 1, units: thr, dt: 1 }));
  return { run_id: id, workload: 'vit_l_16', device_model: 'H100 (simulated)', cap_w: cap, repetition: rep, window: { start: t0, end: t0 + 60 }, units: 'images', steps, gpus: 1, devices: [{ device_id: 'sim:0', samples }], enforced_limit_w: cap, ...extra };
}
let id = 1;
const runs = [[300, 215, 298], [400, 259, 390], [500, 280, 470]].flatMap(([cap, thr, p]) => [1, 2].map((rep) => run(id++, cap!, rep, thr! * (1 + (rep - 1.5) * 0.004), p!)));
runs.push(...[1, 2].map((rep) => run(id++, 250, rep, 240, 330, { enforced_limit_w: 400 })));
const result = analyzeSweep({ sweep_id: 7, runs, overhead_w: 100 }, { overhead_w: 100 });
const g = result.groups[0]!;

describe('report SVG charts', () => {
  it('shades time windows exactly and draws each label only where it clears the last one drawn', () => {
    // 40 adjacent 10 s windows over 400 s: about 11 px each, too narrow for every two-digit label.
    const bands = Array.from({ length: 40 }, (_, i) => ({ from: i * 10, to: i * 10 + 10, label: String(i + 1), window: true }));
    const line = { name: 'GPU 0', type: 'line' as const, axis: 'y' as const, color: '#4e9af1', dashed: false, faded: false, legend: false, points: [0, 400].map((x) => ({ x, y: 300, err: null, label: null, state: 'ok' as const, excluded: false, note: null })) };
    const axis = { label: 'time', unit: 's', min: null, max: null, zero: false, ticks: null };
    const svg = chartSvg({ id: 'dataset-trace', title: 'trace', x: axis, y: { ...axis, label: 'power', unit: 'W' }, y2: null, series: [line], bands, legend: false, caption: '' });
    const windows = [...svg.matchAll(/<g class="band window"><rect x="([\d.]+)" y="\d+" width="([\d.]+)"[^>]*\/>(?:<text x="([\d.]+)"[^>]*>(\d+)<\/text>)?<\/g>/g)];
    expect(windows).toHaveLength(40);
    // Adjacent windows meet: no padding (as cap bands have) that would overlap them.
    for (let i = 1; i < windows.length; i++) expect(Number(windows[i]![1])).toBeCloseTo(Number(windows[i - 1]![1]) + Number(windows[i - 1]![2]), 0);
    const drawn = windows.filter((m) => m[3] !== undefined).map((m) => ({ x: Number(m[3]), half: (m[4]!.length * 5 + 2) / 2 }));
    expect(drawn.length).toBeGreaterThan(10);
    expect(drawn.length).toBeLessThan(40);
    for (let i = 1; i < drawn.length; i++) expect(drawn[i]!.x - drawn[i]!.half).toBeGreaterThanOrEqual(drawn[i - 1]!.x + drawn[i - 1]!.half);
  });

  it('picks round ticks and prints them without exponent noise', () => {
    expect(niceTicks(198, 705)).toEqual([200, 300, 400, 500, 600, 700]);
    expect(niceTicks(0.38, 0.55)).toEqual([0.4, 0.45, 0.5, 0.55]);
    expect(tickText(0.30000000000000004)).toBe('0.3');
    expect(tickText(1250)).toBe('1250');
  });

  it('draws every axis titled with its unit, one CI bar per point that has one, and a cross for an excluded cap', () => {
    const spec = efficiencyChart([{ name: '#7', group: g }]);
    const svg = chartSvg(spec);
    expect(svg).toContain('power cap (W)');
    expect(svg).toContain('images per joule (images/J, node)');
    const withCi = spec.series[0]!.points.filter((p) => p.err != null && p.err > 0).length;
    expect(withCi).toBeGreaterThan(0);
    expect(svg.match(/class="ci"/g)).toHaveLength(withCi);
    expect(g.caps.find((c) => c.cap_w === 250)!.eligible).toBe(false);
    expect(svg).toMatch(/<path d="M[\d.]+ [\d.]+L[\d.]+ [\d.]+M[\d.]+ [\d.]+L[\d.]+ [\d.]+" stroke="#e15759"/);
    const clocks = chartSvg(clockChart(g));
    expect(clocks).toContain('mean SM clock in window (MHz)');
    expect(clocks).toContain('power-cap throttled (% of window)');
  });
});

describe('report HTML', () => {
  const input: ReportInput = {
    kind: 'sweep',
    title: 'A <b>test</b> & report',
    author: 'Ada "A" Lovelace',
    generated_at: '2026-12-01T00:00:00.000Z',
    paper: 'letter',
    sources: [{ label: 'sweep 7', name: 'test', sweep: null, plan_yaml: 'caps: [300]\n', runs: [], devices: [], environment: { host: 'h', os: 'Linux', caplab_version: '0.1.0', caplab_commit: 'abc' }, analysis: result }],
    comparison: null,
  };
  const html = renderReport(input);

  it('is one self-contained document: light theme, the paper size, contents linking every section', () => {
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).toContain('@page { size: Letter;');
    expect(html).not.toMatch(/<script|<link /);
    const anchors = [...html.matchAll(/<a href="#([a-z]+)">/g)].map((m) => m[1]);
    expect(anchors).toEqual(['answer', 'record', 'method', 'efficiency', 'pareto', 'clocks', 'sensitivity', 'flags', 'runs', 'raw']);
    for (const a of anchors) expect(html).toContain(`<section id="${a}"`);
  });

  it('escapes text from records and prints the analysis numbers', () => {
    expect(html).toContain('A &lt;b&gt;test&lt;/b&gt; &amp; report');
    expect(html).toContain('Ada &quot;A&quot; Lovelace');
    const best = g.optima['max-efficiency'];
    expect(html).toContain(`<b class="best-cap" data-selector="max-efficiency">${best.cap_w} W</b>`);
    // Rounded here independently of the report's own formatter: significant digits, no grouping.
    const sig = (x: number, d: number) => String(Number(x.toPrecision(d)));
    const withCi = g.caps.filter((x) => x.efficiency.ci);
    expect(withCi.length).toBeGreaterThan(0);
    for (const c of withCi) expect(html).toContain(`${sig(c.efficiency.mean!, 4)} ± ${sig(c.efficiency.ci!.half_width, 3)}`);
    expect(html).toMatch(/not-enforced/);
  });
});
