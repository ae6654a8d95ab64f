import { describe, expect, it } from 'vitest';
import { runScenarioInline } from '../../src/core/facility/run';
import { comparisonTraces, eventShapes, eventTraces, ldcTraces, seriesTraces, summaryHeaders, summaryRows, zoomRange } from '../../src/renderer/lib/facility-view';
import type { FacilityResult } from '../../src/shared/facility';
import { scenario } from './facility/helpers';

function result(): FacilityResult {
  const a = runScenarioInline(scenario({ targets: [0.3, 0.6], replicas: 3, horizon_days: 5 }));
  const b = runScenarioInline(scenario({ targets: [0.3, 0.6], replicas: 3, horizon_days: 5, overheads: { pue: 1.3 } }));
  const scenarios = [
    { name: 'base', levels: a },
    { name: 'pue', levels: b },
  ];
  return { name: 't', mode: 'training', nodes: 200, step_s: 60, horizon_days: 5, seed: 7, currency: 'EUR', scenarios, levels: a, elapsed_s: 0 };
}

describe('facility page views', () => {
  const r = result();

  it('series: replica band below and above replica 1, total drawn only when overheads change it', () => {
    const base = seriesTraces(r.scenarios[0]!.levels[1]!);
    expect(base.map((t) => t.name)).toEqual(['replica min', 'replica band (3)', 'IT power, replica 1']);
    const [lo, hi, line] = base.map((t) => t.y as number[]);
    line!.forEach((v, i) => {
      expect(lo![i]!).toBeLessThanOrEqual(v + 1e-12);
      expect(hi![i]!).toBeGreaterThanOrEqual(v - 1e-12);
    });
    // Replicas differ somewhere: the band has width.
    expect(hi!.some((v, i) => v - lo![i]! > 1e-3)).toBe(true);
    expect(seriesTraces(r.scenarios[1]!.levels[1]!).map((t) => t.name)).toContain('total (overheads)');
  });

  it('load-duration curves per target, non-increasing; scenario bars for mean and peak', () => {
    const ldc = ldcTraces(r.scenarios[0]!.levels);
    expect(ldc.map((t) => t.name)).toEqual(['30 %', '60 %']);
    const y = ldc[1]!.y as number[];
    for (let i = 1; i < y.length; i++) expect(y[i]!).toBeLessThanOrEqual(y[i - 1]!);
    expect(comparisonTraces(r).map((t) => t.name)).toEqual(['base mean', 'base peak', 'pue mean', 'pue peak']);
  });

  it('summary rows: one per scenario and target, with replica sd and the currency', () => {
    const rows = summaryRows(r);
    expect(rows).toHaveLength(4);
    expect(rows[0]!.cells).toHaveLength(summaryHeaders(r).length);
    // Utilisation: the mean over replicas with their sd; replica 0 hits 30 % (the search), the others scatter around it.
    const util = /^(\d+\.\d) % ± (\d+\.\d)$/.exec(rows[0]!.cells[0]!);
    expect(util).not.toBeNull();
    expect(Math.abs(Number(util![1]) - 30)).toBeLessThan(2.5);
    expect(rows[0]!.cells[8]).toMatch(/^\d+(\.\d+)?( k| M)? EUR$/);
    // PUE 1.3: total mean column 1.3x the IT mean.
    expect(Number(rows[2]!.cells[4]) / Number(rows[2]!.cells[1]!.split(' ')[0])).toBeCloseTo(1.3, 1);
  });

  it('zoom: a week or a day inside the horizon, from the first event (else the peak); the whole horizon unzoomed', () => {
    const l = r.scenarios[0]!.levels[1]!;
    expect(zoomRange(l, 'all')).toBeNull();
    const day = zoomRange(l, 'day')!;
    expect(day[1] - day[0]).toBeCloseTo(1, 9);
    const peakDay = l.series.t_h[l.series.it_w.indexOf(Math.max(...l.series.it_w))]! / 24;
    expect(peakDay).toBeGreaterThanOrEqual(day[0]);
    expect(peakDay).toBeLessThan(day[1]);
    // A week of a 5-day horizon is the horizon; a day asked for past the end stays inside it.
    expect(zoomRange(l, 'week')).toEqual([0, 5]);
    expect(zoomRange(l, 'day', 9)).toEqual([4, 5]);
  });

  it('grid: the grid draw beside the power, event windows shaded, requested vs delivered per event', () => {
    const [l] = runScenarioInline(scenario({ horizon_days: 3, grid: { events: [{ start: 40, duration_h: 2, reduce_pct: 15 }] } }));
    expect(seriesTraces(l!).map((t) => t.name)).toContain('grid draw (after storage)');
    const [shape] = eventShapes(l!);
    expect(shape).toMatchObject({ type: 'rect', x0: 40 / 24, x1: 42 / 24 });
    expect(eventTraces(l!.grid!.events[0]!).map((t) => t.name)).toEqual(['requested', 'delivered']);
    expect(zoomRange(l!, 'day')).toEqual([1, 2]);
    expect(eventShapes(r.scenarios[0]!.levels[0]!)).toEqual([]);
  });
});
