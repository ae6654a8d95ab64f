// Issue #25, finding 1 end to end: a short sweep (300/500/700 W, 5 s warm-up, 10 s window, vit_l_16 on a simulated
// H100) whose 500 and 700 W runs are still ramping in the window. The cards say why there is no best cap and what
// would give one; the page, the HTML and PDF report and `caplab analyze --json` (the real CLI, read-only on the
// host's database) agree; excluded caps are drawn as crosses on sensible axes.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, expect, callApi } from './fixtures';
import { quickPlan, startSweep, waitEnded } from './helpers';

const SELECTORS = ['max-efficiency', 'min-energy-slowdown', 'min-edp', 'weighted'] as const;
interface Optimum {
  cap_w: number | null;
  basis: string;
  no_answer_reason: string | null;
  fix: string | null;
}
const flat = (s: string) => s.replace(/-\s+/g, '-').replace(/\s+/g, ' ');
const unescape = (s: string) => s.replace(/&#39;/g, "'").replace(/&quot;/g, '"').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');

test('results: a short sweep with 1 of 3 caps valid names no best cap, says why and the fix, on every face', async ({ app }, info) => {
  test.skip(info.project.name === 'electron', 'the CLI cross-check reads the browser host\'s database');
  test.setTimeout(180_000);
  const id = await startSweep(app, quickPlan('e2e short sweep', [300, 500, 700], 1, { warmup: { seconds: 5 }, window: { seconds: 10 }, cooldown_s: 0 }));
  expect(await waitEnded(app, id)).toBe('done');

  // What `caplab analyze --json` says, through the real CLI on the host's own database (read-only).
  const db = join(process.env.CAPLAB_E2E_DIR!, 'lab.db');
  const json = JSON.parse(execFileSync(process.execPath, ['bin/caplab.mjs', 'analyze', String(id), '--json', '--db', db], { encoding: 'utf8' })) as { groups: { optima: Record<string, Optimum>; caps: { cap_w: number; eligible: boolean }[]; reference: { cap_w: number; valid: boolean } }[] };
  const g = json.groups[0]!;
  expect(g.caps.map((c) => [c.cap_w, c.eligible])).toEqual([
    [300, true],
    [500, false],
    [700, false],
  ]);
  expect(g.reference).toMatchObject({ cap_w: 700, valid: false });

  await app.setViewportSize({ width: 1280, height: 800 });
  await app.goto(`${new URL(app.url()).origin}${new URL(app.url()).search}#/results/${id}`);
  await expect(app.getByTestId('best-cap')).toHaveText('No answer');
  for (const s of SELECTORS) {
    const o = g.optima[s]!;
    expect(o.cap_w, s).toBeNull();
    expect(o.basis).toBe('1 of 3 caps valid');
    expect(o.no_answer_reason).toBe('only 1 of 3 caps valid (300 W): a best cap needs at least 2');
    expect(o.fix).toMatch(/^warm-up too short for vit_l_16: at least ~\d+ s \(/);
    const card = app.getByTestId(`best-${s}`);
    await expect(card).toContainText('No answer');
    await expect(card).not.toContainText(/\d+ W\b.*slower|0\.0 % slower/);
    await expect(app.getByTestId(`best-basis-${s}`)).toHaveText(o.basis);
    await expect(app.getByTestId(`best-reason-${s}`)).toHaveText(o.no_answer_reason!);
    await expect(app.getByTestId(`best-fix-${s}`)).toHaveText(`Fix: ${o.fix}`);
  }
  await expect(app.getByTestId('energy-basis')).toHaveText('images/J counts GPU energy + 100 W node overhead.');

  // Excluded caps drawn (as crosses, off the line): 3 markers in the efficiency chart; the cap axis spans the grid.
  const eff = app.getByTestId('efficiency-plot');
  await expect(eff.locator('.scatterlayer .point')).toHaveCount(3);
  const ticks = await eff.locator('.xtick text').allTextContents();
  expect(ticks.map((t) => Number(t.replace(/[^\d.]/g, '')))).toEqual(expect.arrayContaining([300, 700]));
  expect(ticks).not.toContain('299');
  if (process.env.CAPLAB_SCREENSHOTS) {
    await app.waitForTimeout(800);
    await app.screenshot({ path: 'docs/screenshots/results-no-answer.png' });
    await eff.scrollIntoViewIfNeeded();
    await app.waitForTimeout(800);
    await app.screenshot({ path: 'docs/screenshots/results-no-answer-charts.png' });
  }

  // The HTML report and the PDF printed from it: no best cap, the same reason and fix.
  const html = await callApi<{ data_base64: string }>(app, 'exportFile', { sweep_id: id, format: 'html' });
  const doc = unescape(Buffer.from(html.data_base64, 'base64').toString('utf8'));
  expect(doc).not.toMatch(/class="best-cap"/);
  for (const s of SELECTORS) {
    expect(doc).toContain(`<b class="no-answer" data-selector="${s}">no answer</b>`);
    expect(doc).toContain(g.optima[s]!.no_answer_reason!);
    expect(doc).toContain(`Fix: ${g.optima[s]!.fix}`);
  }
  expect(doc).not.toMatch(/\+0\.0 % vs/);
  const pdf = await callApi<{ data_base64: string }>(app, 'exportFile', { sweep_id: id, format: 'pdf' });
  const file = info.outputPath('report.pdf');
  writeFileSync(file, Buffer.from(pdf.data_base64, 'base64'));
  const text = flat(execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' }));
  expect(text).toContain('no best cap (1 of 3 caps valid)');
  expect(text).toContain(flat(`Fix: ${g.optima['max-efficiency']!.fix}`));
  expect(text).not.toContain('gives the most work per joule');
});
