import { describe, expect, it } from 'vitest';
import { renderFacilityReport } from '../../../src/core/report/facility';
import { runScenarioInline } from '../../../src/core/facility/run';
import type { FacilityResult } from '../../../src/shared/facility';
import { scenario } from './helpers';

function report(withGrid: boolean): string {
  const grid = { events: [{ name: '<peak> & co', start: 40, duration_h: 2, reduce_pct: 15 }], battery: { mw: 0.01, mwh: 0.02 } };
  const levels = runScenarioInline(scenario({ horizon_days: 3, ...(withGrid ? { grid } : {}) }));
  const result: FacilityResult = { name: 'site', mode: 'training', nodes: 200, step_s: 60, horizon_days: 3, seed: 7, currency: 'USD', scenarios: [{ name: 'caps', levels }], levels, elapsed_s: 0 };
  return renderFacilityReport({ result, config_file: 'site.yaml', config_yaml: 'mode: training\n', title: 't', author: null, generated_at: '2026-12-03T12:00:00Z', paper: 'a4' });
}

describe('facility report: the Grid section', () => {
  it('has the grid and event tables and a requested vs delivered chart per event, names escaped', () => {
    const html = report(true);
    expect(html).toContain('Grid: caps');
    expect(html).toContain('ramp violations (before → after)');
    expect(html).toContain('time to reach min');
    expect(html.match(/<figure[^>]*data-chart="facility-event"/g)).toHaveLength(1);
    expect(html).toContain('&lt;peak&gt; &amp; co');
    expect(html).not.toContain('<peak>');
  });
  it('is left out without a grid config', () => {
    const html = report(false);
    expect(html).not.toContain('Grid: ');
    expect(html).not.toContain('facility-event');
  });
});
