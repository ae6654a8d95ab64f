import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../helpers/cli';
import { tempDir } from '../helpers/tmp';
import { labEnv, recordSimSweeps } from '../helpers/sim-sweep';
import { SELECTORS, type AnalysisResult, type Stat } from '../../src/shared/analysis';
import { openDb } from '../../src/main/lab/store/db';
import { addSegment, createDataset, segmentsOf } from '../../src/main/lab/store/datasets';
import { devicesOfRun } from '../../src/main/lab/store/devices';
import { samplesOfRun, writeSamples } from '../../src/main/lab/store/samples';
import { runsOfSweep } from '../../src/main/lab/store/sweeps';
import { loadSources } from '../../src/main/lab/analysis/sources';
import { analyzeSweep } from '../../src/core/analysis/analyze';

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
    expect(text.replace(/\s+/g, ' ')).toContain(`${best} W gives the most work per joule, ${r4(g.optima['max-efficiency'].value!)} images/J`);
    // In reading order each selector's row gives its best cap, then its score.
    const raw = execFileSync('pdftotext', ['-raw', pdf, '-'], { encoding: 'utf8' }).replace(/\s+/g, ' ');
    const answer = raw.slice(raw.indexOf('1 The answer'), raw.indexOf('2 Machine and run record'));
    for (const s of SELECTORS) {
      const o = g.optima[s];
      // A selector with no eligible cap (the sim's noise can leave none within the slowdown budget) prints "–".
      if (o.cap_w == null || o.value == null) expect(answer).toMatch(/–/);
      else expect(answer).toContain(`${o.cap_w} W ${s === 'weighted' ? 'cost ' : ''}${r4(o.value)}`);
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

  it('reports an imported dataset analysed over its segments, like a sweep', { timeout: 120_000 }, async () => {
    // A dataset made of the first sweep's samples, one segment per run window (what an import of per-cap logs gives).
    const db = openDb(env.CAPLAB_DB);
    const datasetId = createDataset(db, { name: 'imported H100 logs', source: '/logs/h100', format: 'test' });
    let expected: AnalysisResult;
    let segmentIds: number[];
    try {
      for (const run of runsOfSweep(db, ids[0]!)) {
        for (const d of devicesOfRun(db, run.id)) writeSamples(db, { dataset_id: datasetId }, d.id, samplesOfRun(db, run.id, d.id));
        addSegment(db, { dataset_id: datasetId, start: run.measure_start!, end: run.measure_end!, workload: 'vit_l_16', cap_w: run.cap_w, units: 'images', units_in_window: run.throughput! * (run.measure_end! - run.measure_start!), repetition: run.repetition });
      }
      segmentIds = segmentsOf(db, datasetId).map((s) => s.id);
      expected = analyzeSweep(loadSources(db, segmentsOf(db, datasetId).map((s) => ({ kind: 'segment' as const, segment_id: s.id }))), { overhead_w: null });
    } finally {
      db.close();
    }
    const dir = out('dataset');
    const r = await runCli(['report', '--dataset', String(datasetId), '--pdf', join(dir, 'd.pdf'), '--json'], env);
    expect(r.stderr).not.toMatch(/Error/);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).written[0]).toMatchObject({ kind: 'pdf', source: `dataset ${datasetId}` });
    const text = pdftotext(join(dir, 'd.pdf'));
    expect(text).toContain(`imported H100 logs (dataset ${datasetId})`);
    expect(text).toContain('/logs/h100');
    // Its own sections follow the answer: energy by segment (a row per run window) and the trace.
    expect(text.replace(/\s+/g, ' ')).toContain('1. The answer 2. Energy by segment 3. Power trace 4. Machine and run record');
    expect(segmentIds!.length).toBeGreaterThan(0);
    for (const id of segmentIds!) expect(text).toMatch(new RegExp(`^\\s*#${id}\\s+–\\s`, 'm'));
    const best = expected!.groups[0]!.optima['max-efficiency'];
    expect(text.replace(/\s+/g, ' ')).toContain(`${best.cap_w} W gives the most work per joule, ${r4(best.value!)} images/J`);
    const missing = await runCli(['report', '--dataset', '999', '--pdf', join(dir, 'x.pdf')], env);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('no dataset 999');
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
    for (const flag of [['--html-only'], ['--out-dir', dir]]) {
      const single = await runCli(['report', String(ids[0]), ...flag], env);
      expect(single.code, flag[0]).toBe(2);
      expect(single.stderr).toContain(`${flag[0]} goes with --all-since`);
    }
    expect(readdirSync(dir)).toEqual(['x.html']);
  });
});
