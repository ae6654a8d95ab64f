import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../helpers/cli';
import { tempDir } from '../helpers/tmp';
import { labEnv, recordSimSweeps } from '../helpers/sim-sweep';
import { SELECTORS, type AnalysisResult, type Stat } from '../../src/shared/analysis';

const tmp = tempDir('caplab-report-');
afterAll(() => tmp.cleanup());
const env = labEnv(tmp.dir);
let ids: number[] = [];

beforeAll(async () => {
  ids = await recordSimSweeps(tmp.dir, ['h100-sxm', 'h200']);
}, 240_000);

/** Rounds as the report prints: significant digits, no digit grouping (an independent re-implementation). */
const r4 = (x: number, d = 4) => String(Number(x.toPrecision(d)));
const ci = (s: Stat) => `${r4(s.mean!)} ± ${r4(s.ci!.half_width, 3)}`;
const pdftotext = (file: string) => execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' });
const pages = (file: string) => Number(/Pages:\s+(\d+)/.exec(execFileSync('pdfinfo', [file], { encoding: 'utf8' }))![1]);
const out = (name: string) => {
  const d = join(tmp.dir, name);
  mkdirSync(d, { recursive: true });
  return d;
};

describe('caplab report', () => {
  it('prints a PDF whose pages all render and whose best caps, means and CIs equal caplab analyze --json', { timeout: 180_000 }, async () => {
    const dir = out('one');
    const a = await runCli(['analyze', String(ids[0]), '--overhead', '150', '--json'], env);
    expect(a.code).toBe(0);
    const analysis = JSON.parse(a.stdout) as AnalysisResult;
    const r = await runCli(['report', String(ids[0]), '--overhead', '150', '--pdf', join(dir, 'r.pdf'), '--html', join(dir, 'r.html'), '--author', 'Ada Lovelace', '--paper', 'letter', '--json'], env);
    expect(r.stderr).toMatch(/printing with/);
    expect(r.code).toBe(0);
    const described = JSON.parse(r.stdout);
    expect(described.written.map((f: { kind: string }) => f.kind).sort()).toEqual(['html', 'pdf']);
    expect(described.failed).toEqual([]);
    const pdf = join(dir, 'r.pdf');
    expect(described.written.find((f: { kind: string }) => f.kind === 'pdf')).toMatchObject({ path: pdf, source: `sweep ${ids[0]}` });
    expect(readdirSync(dir).sort()).toEqual(['r.html', 'r.pdf']);

    const n = pages(pdf);
    expect(n).toBeGreaterThan(4);
    expect(execFileSync('pdfinfo', [pdf], { encoding: 'utf8' })).toMatch(/Page size:\s+612 x 792/);
    execFileSync('pdftoppm', ['-r', '30', '-png', pdf, join(dir, 'page')]);
    expect(readdirSync(dir).filter((f) => f.startsWith('page')).length).toBe(n);

    const text = pdftotext(pdf);
    for (const section of ['The answer', 'Machine and run record', 'Methodology', 'Efficiency and throughput vs cap', 'Pareto front', 'Clocks and throttling vs cap', 'Overhead sensitivity', 'Flags and what they mean', 'Runs', 'Appendix: raw summary', 'Contents']) {
      expect(text, section).toContain(section);
    }
    expect(text).toContain('Ada Lovelace');
    expect(text).toContain(`page 1 of ${n}`);
    expect(text).toMatch(/power cap \(W\)/);
    expect(text).toMatch(/images per joule \(images\/J, node\)/);
    const g = analysis.groups[0]!;
    const best = g.optima['max-efficiency'].cap_w!;
    expect(text).toContain(`${best} W gives the most work per joule, ${r4(g.optima['max-efficiency'].value!)} images/J`);
    const answer = text.slice(text.indexOf('1 The answer'), text.indexOf('2 Machine and run record'));
    for (const s of SELECTORS) {
      const o = g.optima[s];
      // Each selector's row: its best cap, then its score.
      expect(answer).toMatch(new RegExp(`${o.cap_w} W\\s+\\S*\\s*${r4(o.value!).replace('.', '\\.')}`));
    }
    for (const c of g.caps) {
      const row = text.split('\n').find((l) => new RegExp(`^\\s*${c.cap_w} W\\s+${c.n_usable}\\s`).test(l));
      expect(row, `cap ${c.cap_w}`).toBeDefined();
      expect(row).toContain(ci(c.efficiency));
      expect(row).toContain(ci(c.throughput));
    }
    expect(text).toContain(`overhead_w":150`);
  });

  it('compares two sweeps in one report with a comparison section', { timeout: 120_000 }, async () => {
    const dir = out('cmp');
    const r = await runCli(['report', '--compare', `${ids[0]},${ids[1]}`, '--pdf', join(dir, 'c.pdf')], env);
    expect(r.code).toBe(0);
    const text = pdftotext(join(dir, 'c.pdf'));
    expect(text).toContain('Comparison');
    expect(text).toMatch(/H200/);
    expect(text).toMatch(/H100/);
  });

  it('writes one report per sweep since a date, and describes them', { timeout: 120_000 }, async () => {
    const dir = out('batch');
    const r = await runCli(['report', '--all-since', '2020-01-01', '--out-dir', dir, '--html-only', '--json'], env);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).written.map((f: { path: string }) => f.path)).toEqual(ids.map((id) => join(dir, `caplab-report-sweep-${id}.html`)));
    const none = await runCli(['report', '--all-since', '2999-01-01', '--json'], env);
    expect(none.code).toBe(0);
    expect(JSON.parse(none.stdout).written).toEqual([]);
  });

  it('rejects unknown ids, unwritable paths and a missing browser clearly, leaving nothing half-written', { timeout: 120_000 }, async () => {
    const dir = out('bad');
    const unknown = await runCli(['report', '999', '--pdf', join(dir, 'x.pdf')], env);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('no sweep 999');
    const unwritable = await runCli(['report', String(ids[0]), '--pdf', join(dir, 'missing', 'x.pdf')], env);
    expect(unwritable.code).toBe(2);
    expect(unwritable.stderr).toContain(`folder ${join(dir, 'missing')} does not exist`);
    const named = await runCli(['report', String(ids[0]), '--pdf', join(dir, 'x.pdf'), '--browser', '/no/such/chrome'], env);
    expect(named.code).toBe(2);
    expect(named.stderr).toContain('browser /no/such/chrome does not exist');
    expect(readdirSync(dir)).toEqual([]);

    const noBrowser = await runCli(['report', String(ids[0]), '--pdf', join(dir, 'x.pdf'), '--json'], { ...env, CAPLAB_BROWSER_PATHS: '/no/chromium' });
    expect(noBrowser.code).toBe(1);
    expect(noBrowser.stderr).toMatch(/no Chromium or Chrome found.*Open .*x\.html in a browser and print it to PDF/s);
    expect(JSON.parse(noBrowser.stdout).failed[0]).toMatchObject({ path: join(dir, 'x.pdf') });
    expect(readdirSync(dir)).toEqual(['x.html']);
    expect(existsSync(join(dir, 'x.pdf'))).toBe(false);
    const paper = await runCli(['report', String(ids[0]), '--paper', 'a3'], env);
    expect(paper.code).toBe(2);
    expect(paper.stderr).toContain('--paper must be a4 or letter');
  });
});
