import { describe, expect, it } from 'vitest';
import { runScenarioInline } from '../../../src/core/facility/run';
import { EVENT_HEADERS, eventCells, GRID_HEADERS, gridCells, levelCells, levelHeaders } from '../../../src/shared/facility-format';
import { scenario } from './helpers';

describe('facility tables: one set of units for the CLI, the page and the report', () => {
  const [l] = runScenarioInline(scenario({ horizon_days: 3, replicas: 2, tariff: { price_per_mwh: 60 }, grid: { events: [{ start: 40, duration_h: 1, reduce_pct: 10 }] } }));
  const r = { mode: 'training' as const, currency: 'USD' };

  it('utilisation in %, power in MW, energy in GWh, cost with its currency; no "± 0.000"', () => {
    const cells = levelCells(r, l!);
    expect(cells).toHaveLength(levelHeaders(r).length);
    expect(levelHeaders(r)).toContain('energy GWh');
    expect(cells[0]).toMatch(/^\d+\.\d %( ± \d+\.\d)?$/);
    expect(cells[1]).toMatch(/^\d+\.\d{3}( ± \d+\.\d{3})?$/);
    for (const c of cells) expect(c).not.toContain('± 0.000');
    expect(Number(cells[7])).toBeCloseTo(l!.energy_total_mwh / 1000, 4);
    expect(cells[8]).toMatch(/^\d+(\.\d+)?( k| M)? USD$/);
    expect(levelCells({ mode: 'inference', currency: 'USD' }, { ...l!, incomplete_fraction: 0.1234 })[11]).toBe('12.34 %');
  });

  it('grid and event rows have one cell per header', () => {
    expect(gridCells(l!.grid!)).toHaveLength(GRID_HEADERS.length);
    const e = eventCells(l!.grid!.events[0]!, 'USD');
    expect(e).toHaveLength(EVENT_HEADERS.length);
    expect(e[3]).toBe('100 %');
  });
});
