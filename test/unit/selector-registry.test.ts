import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { selectorIds, selectorList } from '../../src/shared/selectors';
import { AnalysisGroup, Selector } from '../../src/shared/analysis';
import { optimumValue, SELECTOR_ORDER, selectorTitle } from '../../src/shared/analysis-view';
import { selectOptimum } from '../../src/core/analysis/optimum';
import { sourceFiles } from '../helpers/source-files';

const run = (throughput: number, efficiency: number) => ({ throughput, efficiency });
const points = [200, 300, 400].map((cap_w, i) => ({ cap_w, eligible: true, excluded_reason: null, runs: [run(10 + i * 3, 0.05 - i * 0.005), run(10.2 + i * 3, 0.051 - i * 0.005)] }));

describe('selector registry', () => {
  it('the contract, the display order and the optima all come from the one list', () => {
    expect(Selector.options).toEqual(selectorList.map((s) => s.id));
    expect(SELECTOR_ORDER).toEqual(selectorIds);
    // A group's optima hold every selector's optimum, and nothing else.
    const optima = Object.fromEntries(selectorIds.map((id) => [id, selectOptimum(points, id)]));
    expect(AnalysisGroup.shape.optima.safeParse(optima).success).toBe(true);
    const { [selectorIds[0]]: _first, ...missing } = optima;
    expect(AnalysisGroup.shape.optima.safeParse(missing).success).toBe(false);
    expect(AnalysisGroup.shape.optima.safeParse({ ...optima, fastest: optima[selectorIds[0]] }).success).toBe(false);
  });

  it('every selector has a rule: it picks a cap, and its score and title read in words', () => {
    for (const id of selectorIds) {
      const o = selectOptimum(points, id, { slowdown_budget: 0.5, weight: 0.5 });
      expect(o.selector).toBe(id);
      expect(o.cap_w).not.toBeNull();
      expect(optimumValue(o, 'images')).toMatch(/\d/);
      expect(selectorTitle(id, { slowdown_budget: 0.1, weight: 0.5 }).length).toBeGreaterThan(5);
    }
  });

  it('no file outside the list spells out the selectors by hand', () => {
    const ids = selectorIds.map((s) => s.replace(/-/g, '\\-')).join('|');
    const list = new RegExp(`['"](?:${ids})['"]\\s*,\\s*['"](?:${ids})['"]`);
    const offenders = sourceFiles(join(process.cwd(), 'src')).filter((f) => !f.endsWith(join('shared', 'selectors.ts')) && list.test(readFileSync(f, 'utf8')));
    expect(offenders).toEqual([]);
  });
});
