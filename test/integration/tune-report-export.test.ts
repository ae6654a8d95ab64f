// A tuning session in its report and its CSV export (issue 27): the report's Tuning section and tune-csv read the
// figures its status stored, a plain sweep has no such section and its tune-csv is refused, and `caplab export tune`
// writes the same CSV. A real SQLite file, the app's Export (exportForApp) and the real CLI.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openDb, type Db } from '../../src/main/lab/store/db';
import { appendRuns, createSweep, finishSweep, setTuneReport, setTuneStatus } from '../../src/main/lab/store/sweeps';
import { exportForApp } from '../../src/main/lab/exporters/app-export';
import { Plan } from '../../src/shared/plan';
import type { TuneStatus } from '../../src/shared/tune';
import { scheduleRuns } from '../../src/core/schedule';
import { runCli } from '../helpers/cli';
import { labEnv } from '../helpers/lab-env';
import { tempDir } from '../helpers/tmp';

const tmp = tempDir('caplab-tune-export-');
const env = labEnv(tmp.dir, 'lab');
const plan = Plan.parse({ workloads: [{ id: 'command' }], caps: [300, 500], repetitions: 1 });
const noPrinter = { printPdf: async () => Promise.reject(new Error('no printer in this test')) };
const text = (f: { data_base64: string }) => Buffer.from(f.data_base64, 'base64').toString('utf8');

const ended = (sweep_id: number): TuneStatus => ({
  sweep_id, stage: 'ended', cap_w: 335, held_w: 335, visits: 2, profiling_s: 370.25, profiling_share: 0.2017, budget_s: 375, job_s: 1834.5, expected_s: 1500, default_limit_w: 700,
  note: 'held 335 W: profiling budget spent (370 of 375 s)',
  outcome: {
    hold_reason: 'budget', hold_note: 'profiling budget spent (370 of 375 s)', energy_j: 612400,
    saved_j: { value: 52340, ci: [41020, 63660] }, saved_fraction: { value: 0.0787, ci: [0.0629, 0.0942] }, slowdown: { value: 0.012, ci: [0.008, 0.016] },
    savings_note: 'from 2 visits at the default limit 700 W', profiling_off_cap_s: 210.5, reprofiles: 1, phase_changes: [{ t: 900.5, what: 'throughput fell 30 %' }],
  },
});

let db: Db;
let tuned = 0;
let plain = 0;
let older = 0;

beforeAll(() => {
  db = openDb(env.CAPLAB_DB!);
  plain = createSweep(db, { name: 'a sweep', plan, host: 'h', backend: 'sim', simulated: true }, scheduleRuns(plan)).sweepId;
  tuned = createSweep(db, { name: 'tune: job', plan, host: 'h', backend: 'sim', simulated: true }, []).sweepId;
  appendRuns(db, tuned, [{ workload: 'command', cap_w: 300, repetition: 1, order: 0 }, { workload: 'command', cap_w: 500, repetition: 1, order: 1 }]);
  setTuneStatus(db, tuned, ended(tuned));
  setTuneReport(db, tuned, 'tune session: done\nenergy saved    52340 J (95 % interval 41020 to 63660 J)\n');
  // A session stored before its status kept the end report's figures: the report shows the text instead.
  older = createSweep(db, { name: 'tune: older', plan, host: 'h', backend: 'sim', simulated: true }, []).sweepId;
  const { outcome: _, ...without } = ended(older);
  setTuneStatus(db, older, without);
  setTuneReport(db, older, 'tune session: done\nenergy saved    1200 J (95 % interval 900 to 1500 J) <held>\n');
});

afterAll(() => {
  db?.close();
  tmp.cleanup();
});

const report = async (sweep_id: number) => text(await exportForApp(db, { sweep_id, format: 'html' }, noPrinter));
const section = (html: string) => html.match(/<section id="tuning"[^>]*>([\s\S]*?)<\/section>/)?.[1] ?? null;

describe("a tuning session's report and CSV export", () => {
  it('the report opens with a Tuning section: the held cap, why, and the stored saving and slowdown intervals', async () => {
    const html = await report(tuned);
    const tuning = section(html)!;
    for (const want of [
      '<span class="num">1</span> Tuning',
      // The headline: the cap, why in a word (the note is in the table), what it saved and at what slowdown.
      "Held <b>335 W</b> (budget) against the default limit of 700 W: it saved 52340\u00a0J (95 % interval 41020\u00a0J to 63660\u00a0J), 7.9 % of the default's energy, at a slowdown of 1.2 % (95 % interval 0.8 % to 1.6 %).",
      '<td>held because</td><td>budget</td>',
      '<td>energy the job used (GPUs, measured)</td><td>612400\u00a0J</td>',
      '<td>52340\u00a0J</td><td>41020\u00a0J to 63660\u00a0J</td>',
      '<td>7.87 %</td><td>6.29 % to 9.42 %</td>',
      '<td>slowdown vs the default limit</td><td>1.20 %</td><td>0.80 % to 1.60 %</td>',
      '<td>profiling share of the job</td><td>20.17 %</td>',
      '<td>re-profiles</td><td>1</td>',
      '<td>phase change</td><td>throughput fell 30 %</td>',
      'The session’s 2 profiling visits are the runs below',
    ]) expect(tuning).toContain(want);
    // The figures are there, so the text is not repeated, nor the tuner's note that restates the hold note; the
    // section comes before the answer.
    expect(tuning).toContain('<td>hold note</td><td>profiling budget spent (370 of 375 s)</td>');
    expect(tuning).not.toContain('tuner’s note');
    expect(tuning).not.toContain('tune-report');
    expect(html.indexOf('id="tuning"')).toBeLessThan(html.indexOf('id="answer"'));
  });

  it("a session stored without the figures shows its end report's text verbatim (escaped)", async () => {
    const tuning = section(await report(older))!;
    expect(tuning).toContain('<pre class="plan tune-report">tune session: done\nenergy saved    1200 J (95 % interval 900 to 1500 J) &lt;held&gt;\n</pre>');
    expect(tuning).toContain('<td>cap held</td><td>335\u00a0W</td>');
    expect(tuning).not.toContain('held because');
    // No hold note to restate: the tuner's note is the only one.
    expect(tuning).toContain('<td>tuner’s note</td><td>held 335 W: profiling budget spent (370 of 375 s)</td>');
  });

  it('a plain sweep’s report has no Tuning section and starts with the answer', async () => {
    const html = await report(plain);
    expect(section(html)).toBeNull();
    expect(html).not.toContain('>Tuning<');
    expect(html).toContain('<span class="num">1</span> The answer');
  });

  it('tune-csv is one row per stored figure, unrounded, with its interval and unit', async () => {
    const f = await exportForApp(db, { sweep_id: tuned, format: 'tune-csv' }, noPrinter);
    expect(f.filename).toBe(`caplab-sweep-${tuned}-tune.csv`);
    const s = ended(tuned);
    const o = s.outcome!;
    expect(text(f).trim().split('\n').map((l) => l.split(','))).toEqual([
      ['field', 'value', 'ci_lo', 'ci_hi', 'unit'],
      ['stage', 'ended', '', '', ''],
      ['cap_held_w', String(s.held_w), '', '', 'W'],
      ['hold_reason', o.hold_reason, '', '', ''],
      ['hold_note', o.hold_note, '', '', ''],
      ['default_limit_w', String(s.default_limit_w), '', '', 'W'],
      ['energy_used_j', String(o.energy_j), '', '', 'J'],
      ['energy_saved_j', ...[o.saved_j!.value, ...o.saved_j!.ci].map(String), 'J'],
      ['energy_saved_fraction', ...[o.saved_fraction!.value, ...o.saved_fraction!.ci].map(String), 'fraction'],
      ['slowdown', ...[o.slowdown!.value, ...o.slowdown!.ci].map(String), 'fraction'],
      ['savings_note', o.savings_note, '', '', ''],
      ['profiling_s', String(s.profiling_s), '', '', 's'],
      ['profiling_share', String(s.profiling_share), '', '', 'fraction'],
      ['profiling_budget_s', String(s.budget_s), '', '', 's'],
      ['profiling_off_cap_s', String(o.profiling_off_cap_s), '', '', 's'],
      ['visits', String(s.visits), '', '', 'count'],
      ['job_s', String(s.job_s), '', '', 's'],
      ['expected_s', String(s.expected_s), '', '', 's'],
      ['reprofiles', String(o.reprofiles), '', '', 'count'],
      ['phase_change', o.phase_changes[0]!.what, '', '', ''],
      ['note', s.note, '', '', ''],
    ]);
  });

  it('tune-csv of an interrupted session (CapLab killed mid-profile) is its last stage, read as interrupted', async () => {
    const killed = createSweep(db, { name: 'tune: killed', plan, host: 'h', backend: 'sim', simulated: true }, []).sweepId;
    const { outcome: _, ...profiling } = ended(killed);
    setTuneStatus(db, killed, { ...profiling, stage: 'visit', cap_w: 300, held_w: null, note: 'profiling 300 W' });
    // As the next open finds it once its process is gone (markInterruptedSweeps).
    finishSweep(db, killed, 'interrupted', 'the sweep process was killed');
    const rows = text(await exportForApp(db, { sweep_id: killed, format: 'tune-csv' }, noPrinter)).trim().split('\n');
    expect(rows).toContain('stage,interrupted,,,');
    expect(rows.find((r) => r.startsWith('note,'))).toMatch(/^note,"?interrupted: CapLab was killed while this session was profiling 300 W/);
    expect(rows.some((r) => r.startsWith('energy_saved_j,'))).toBe(false);
  });

  it('tune-csv of a sweep that is not a tuning session is refused, naming the sweep', async () => {
    await expect(exportForApp(db, { sweep_id: plain, format: 'tune-csv' }, noPrinter)).rejects.toThrow(`sweep ${plain} is not a tuning session`);
    await expect(exportForApp(db, { sweep_id: tuned, compare_ids: [plain], format: 'tune-csv' }, noPrinter)).rejects.toThrow(/^tune-csv is not an export of a comparison: /);
  });

  it('caplab export tune writes the same CSV, and refuses a plain sweep with exit 2', { timeout: 60_000 }, async () => {
    const file = join(tmp.dir, 'tune.csv');
    const [ok, refused] = await Promise.all([
      runCli(['export', 'tune', String(tuned), '--csv', file], env),
      runCli(['export', 'tune', String(plain), '--csv', join(tmp.dir, 'plain.csv')], env),
    ]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(text(await exportForApp(db, { sweep_id: tuned, format: 'tune-csv' }, noPrinter)));
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`sweep ${plain} is not a tuning session`);
  });
});
