// Issue #25, findings 1 and 10 on every face: the short sweep (1 of 3 caps valid) has no headline best cap in the
// Results page's words, the report or the JSON; excluded caps are drawn as crosses; axes are sensible for 1 point.
import { describe, expect, it } from 'vitest';
import { analyzeSweep } from '../../src/core/analysis/analyze';
import { noAnswerText, optimumValue, SELECTOR_ORDER, slowdownText } from '../../src/shared/analysis-view';
import { efficiencyChart, fitAxis, paretoChart, sensitivityChart, throughputChart } from '../../src/shared/charts';
import { plotlyFigure } from '../../src/renderer/lib/plotly-figure';
import { chartSvg } from '../../src/core/report/svg';
import { answerSection } from '../../src/core/report/sections';
import { paperSweep, rampRun, shortSweep } from './analysis/synth';

const model = 'H100 SXM (simulated)';
const short = analyzeSweep({ runs: shortSweep(), overhead_w: 100, default_limits: { [model]: 700 } });
const g = short.groups[0]!;
const crosses = (svg: string) => (svg.match(/<path d="M[\d.]+ [\d.]+L[\d.]+ [\d.]+M[\d.]+ [\d.]+L[\d.]+ [\d.]+" stroke=/g) ?? []).length;

describe('no answer, said the same way on the cards and in the report', () => {
  it('every selector: the card words give the reason and the fix; the report names no best cap', () => {
    const html = answerSection(short, g, 'vit_l_16');
    expect(html).not.toMatch(/class="best-cap"/);
    for (const s of SELECTOR_ORDER) {
      const none = noAnswerText(g.optima[s])!;
      expect(none.reason).toMatch(/only 1 of 3 caps valid/);
      expect(none.fix).toMatch(/warm-up too short for vit_l_16: at least ~\d+ s/);
      expect(html).toContain(`<b class="no-answer" data-selector="${s}">no answer</b>`);
      expect(html).toContain(none.fix!.replace(/'/g, '&#39;'));
    }
    expect(html).toMatch(/no best cap<\/b> \(1 of 3 caps valid\)/);
    // The old report said "+0.0 % vs 300 W", the card "0.0 % slower than 700 W": now neither gives a slowdown.
    expect(html).not.toMatch(/0\.0 %/);
    expect(html).toMatch(/No slowdowns: the reference cap 700 W \(default limit, measured\) is not valid/);
  });
  it('with an answer, the card and the report give the same slowdown against the same reference', () => {
    const runs = paperSweep({ workload: 'vit_l_16', throughput: [116.4, 214.9, 259.0, 280.05, 297.79, 305.97], factors: [0.98, 1, 1.02], device_model: model, windowS: 20, warmupS: 5 });
    const r = analyzeSweep({ runs, overhead_w: 100, default_limits: { [model]: 700 } });
    const x = r.groups[0]!;
    const o = x.optima['min-energy-slowdown'];
    const text = slowdownText(o, x.reference)!;
    expect(text).toMatch(/^\d+\.\d % slower than 700 W \(default limit, measured\)$/);
    // The card's detail ("· 9.3 % slower than 700 W") is the same figure against the same cap.
    expect(optimumValue(o, 'images')).toContain(text.replace(/ \(.*\)$/, ''));
    const html = answerSection(r, x, 'vit_l_16');
    for (const s of SELECTOR_ORDER) {
      const t = slowdownText(x.optima[s], x.reference);
      if (t) expect(html).toContain(t);
    }
    expect(x.optima['max-efficiency'].basis).toBe('6 of 6 caps valid');
  });
});

describe('charts with one valid cap (finding 10)', () => {
  it('draws the two excluded caps as crosses off the line, at their left-out runs\' mean', () => {
    for (const spec of [efficiencyChart([{ name: '#1', group: g }]), throughputChart([{ name: '#1', group: g }])]) {
      const [line, left] = spec.series;
      expect(line!.points.map((p) => p.x)).toEqual([300]);
      expect(left!.type).toBe('points');
      expect(left!.points.map((p) => [p.x, p.excluded])).toEqual([
        [500, true],
        [700, true],
      ]);
      expect(left!.points[1]!.y).toBeCloseTo(spec.id === 'efficiency' ? g.caps[2]!.excluded_efficiency!.mean! : g.caps[2]!.excluded_throughput!.mean!, 12);
      expect(crosses(chartSvg(spec))).toBe(2);
      const fig = plotlyFigure(spec);
      expect(fig.data[1]!.marker!.symbol).toEqual(['x', 'x']);
    }
  });
  it('one point: the cap axis spans +-50 W (not 299-301 W) and efficiency 0..1.25x (not -0.5..1)', () => {
    const one = { ...g, caps: [g.caps[0]!] };
    const spec = efficiencyChart([{ name: '#1', group: one }]);
    const y = g.caps[0]!.efficiency.mean!;
    expect([spec.x.min, spec.x.max]).toEqual([250, 350]);
    expect(spec.y.min).toBe(0);
    expect(spec.y.max).toBeCloseTo(1.25 * y, 12);
    const layout = plotlyFigure(spec).layout as unknown as { xaxis: { range: number[] }; yaxis: { range: number[] } };
    expect(layout.xaxis.range).toEqual([250, 350]);
    expect(layout.yaxis.range[0]).toBe(0);
    const svg = chartSvg(spec);
    expect(svg).toContain('>300<');
    expect(svg).not.toContain('>299<');
    const pareto = paretoChart([{ name: '#1', group: one }]);
    expect(pareto.x.min).toBe(0);
    expect(pareto.y.min).toBe(0);
  });
  it('no best cap at any overhead: the sensitivity chart spans the overheads and the grid, and says why it is empty', () => {
    const spec = sensitivityChart(g);
    expect(spec.series.every((x) => x.points.length === 0)).toBe(true);
    expect([spec.x.min, spec.x.max, spec.y.min, spec.y.max]).toEqual([0, 300, 250, 750]);
    expect(spec.caption).toMatch(/No selector has a best cap/);
  });
  it('fitAxis leaves a spread of points to the charting and widens only a degenerate one', () => {
    const a = { label: 'power cap', unit: 'W', min: null, max: null, zero: false, ticks: null };
    expect(fitAxis(a, [300, 500], 'cap')).toBe(a);
    expect(fitAxis(a, [700, 700], 'cap')).toMatchObject({ min: 630, max: 770 });
    expect(fitAxis(a, [0], 'value')).toMatchObject({ min: 0, max: 1 });
    expect(fitAxis(a, [], 'cap')).toBe(a);
  });
  it('two valid caps and one excluded: the line has two points and the cross its own', () => {
    const runs = [rampRun(1, 300, 192.2, 0.3, 1000), rampRun(2, 500, 240, 0.3, 2000), rampRun(3, 700, 253.6, 6, 3000)];
    const x = analyzeSweep({ runs, overhead_w: 100 }).groups[0]!;
    const spec = efficiencyChart([{ name: '#1', group: x }]);
    expect(spec.series[0]!.points.map((p) => p.x)).toEqual([300, 500]);
    expect(spec.series[1]!.points.map((p) => p.x)).toEqual([700]);
    expect(spec.x.min).toBeNull();
  });
});
