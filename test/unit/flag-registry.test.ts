// Issue #25, finding 6: one registry of flags (src/shared/flags.ts) that every face reads. A counter-reset on a run
// showed in the PDF's run table and the JSON but not on the Results page, and the report did not explain it.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { analyzeSweep } from '../../src/core/analysis/analyze';
import { AnalysisFlag, type AnalysisRunInput } from '../../src/shared/analysis';
import { FLAG_INFO } from '../../src/shared/analysis-view';
import { flagEffect, flagIds, flagList, FLAGS_AT_CAP, FLAGS_EXCLUDING_RUNS } from '../../src/shared/flags';
import { flagsSection } from '../../src/core/report/sections';
import { describeGroup } from '../../src/main/cli/commands/analyze';
import { sourceFiles } from '../helpers/source-files';

/** A 20 s run at `cap` whose energy counter resets 8 s into the window (bridged with the instant power). */
function resetRun(id: number, cap: number): AnalysisRunInput {
  const t0 = 1000 * id;
  const p = 0.95 * cap;
  const samples = Array.from({ length: 201 }, (_, i) => {
    const t = t0 + i * 0.1;
    const e = p * (t - t0) * 1000;
    return { t, power_w: p, power_kind: 'instant' as const, energy_mj: t - t0 < 8 ? 5e6 + e : e - p * 8 * 1000, limit_w: cap };
  });
  const steps = Array.from({ length: 20 }, (_, i) => ({ t: t0 + i + 1, units: cap / 2, dt: 1 }));
  return { run_id: id, workload: 'w', device_model: 'd', cap_w: cap, window: { start: t0, end: t0 + 20 }, units: 'images', steps, gpus: 1, devices: [{ device_id: 'g0', samples }], enforced_limit_w: cap };
}

describe('the flag registry', () => {
  it('holds every flag the analysis schema has, once, and the analysis code emits no other', () => {
    expect(new Set(flagIds).size).toBe(flagIds.length);
    expect([...AnalysisFlag.options].sort()).toEqual([...flagIds].sort());
    const emitted = new Set<string>();
    for (const f of sourceFiles('src/core/analysis')) {
      const text = readFileSync(f, 'utf8');
      for (const m of text.matchAll(/\bflags?(?:\.push)?\('([a-z0-9-]+)'\)/g)) emitted.add(m[1]!);
    }
    expect(emitted.size).toBeGreaterThan(10);
    for (const f of emitted) expect(flagIds, f).toContain(f);
  });
  it('says which flags exclude: the steady-state ones leave runs out, and the analysis uses exactly those', () => {
    expect([...FLAGS_EXCLUDING_RUNS].sort()).toEqual(['no-steady-state', 'warmup-in-window']);
    expect(FLAGS_AT_CAP).toContain('counter-reset');
    for (const f of flagList) expect(flagEffect(f)).toMatch(/\w/);
  });
  it('no face keeps its own copy of a meaning: each meaning appears in src only in the registry', () => {
    const files = sourceFiles('src').filter((f) => !f.endsWith('shared/flags.ts'));
    const texts = files.map((f) => readFileSync(f, 'utf8'));
    for (const f of flagList) for (const t of texts) expect(t.includes(f.meaning), f.id).toBe(false);
  });
});

describe('a counter-reset on a run, on every face', () => {
  const r = analyzeSweep({ runs: [resetRun(1, 300), resetRun(2, 400)], overhead_w: 100 });
  const g = r.groups[0]!;
  it('the run and its cap carry it (the Results page shows cap flags as chips from FLAG_INFO)', () => {
    expect(r.runs[0]!.flags).toContain('counter-reset');
    expect(g.caps[0]!.flags).toContain('counter-reset');
    expect(FLAG_INFO['counter-reset'].label).toBe('counter reset');
  });
  it('the report explains it in "Flags and what they mean" with the registry\'s meaning and effect', () => {
    const html = flagsSection(g, r);
    expect(html).toContain('What each flag means');
    expect(html).toContain(`data-flag="counter-reset"`);
    expect(html).toContain(FLAG_INFO['counter-reset'].meaning);
    expect(html).toContain('informs; nothing is left out');
  });
  it('`caplab analyze` prints its meaning under the table', () => {
    expect(describeGroup(g, r)).toContain(`flag counter-reset (warn): ${FLAG_INFO['counter-reset'].meaning}`);
  });
});

describe('docs/user-guide.md lists every flag with the registry\'s words', () => {
  it('one table row per flag', () => {
    const doc = readFileSync('docs/user-guide.md', 'utf8');
    for (const f of flagList) expect(doc, f.id).toContain(`| \`${f.id}\` | ${f.severity} | ${f.meaning} | ${flagEffect(f)} |`);
  });
});
