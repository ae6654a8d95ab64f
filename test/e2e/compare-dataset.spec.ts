// The results page compares a recorded sweep with an imported dataset's segments (cap + work units), analysed as
// `caplab analyze --dataset` does; the shown values are those of `caplab compare SWEEP --dataset ID --json`.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { test, expect, callApi } from './fixtures';
import { quickPlan, startSweep, waitEnded } from './helpers';
import { nvidiaSmiLog } from '../../bench/gen-power-logs';

interface CliComparison {
  sweeps: { label: string; best: Record<string, number | null>; peak_efficiency: number | null }[];
}

/** sig(x, 3) of the page: about 3 significant digits, en-US grouping. */
const sig3 = (x: number) => x.toLocaleString('en-US', { maximumFractionDigits: Math.min(6, Math.max(0, 2 - Math.floor(Math.log10(Math.abs(x))))), minimumFractionDigits: Math.min(6, Math.max(0, 2 - Math.floor(Math.log10(Math.abs(x))))) });

test('results: an imported dataset with cap + units segments is compared beside a sweep, with the values of caplab compare --dataset', async ({ app }, info) => {
  test.setTimeout(240_000);
  const dir = mkdtempSync(join(tmpdir(), 'caplab-e2e-cmpds-'));
  try {
    const sweep = await startSweep(app, quickPlan('e2e compare with a dataset', [300, 500], 1, { cooldown_s: 0 }));
    // 8 GPUs at 10 Hz for 200 s; two windows of it typed as the same workload at two caps, with the work done.
    const file = join(dir, 'two-caps-nvidia-smi.csv');
    await nvidiaSmiLog(file, 16_000);
    const r = await callApi<{ dataset: { id: number; t_start: number } }>(app, 'importDataset', { import_id: 'e2e-cmpds', paths: [file], tz: 'UTC', name: 'field log at two caps' });
    const ds = r.dataset.id;
    for (const [from, to, cap, work] of [
      [20, 80, 300, 52_000],
      [110, 170, 500, 61_000],
    ] as const) {
      await callApi(app, 'saveSegment', { dataset_id: ds, start: r.dataset.t_start + from, end: r.dataset.t_start + to, origin: 'brush', label: `${cap} W`, workload: 'vit_l_16', cap_w: cap, units: 'images', units_in_window: work });
    }
    expect(await waitEnded(app, sweep)).toBe('done');

    await app.goto(`${new URL(app.url()).origin}${new URL(app.url()).search}#/results/${sweep}`);
    await expect(app.getByTestId('best-cap')).toHaveText(/\d+ W/);
    // The picker lists the dataset (it has segments with cap and units), labelled as a dataset.
    const picker = app.getByTestId('results-compare');
    await expect(picker.locator(`option[value="dataset:${ds}"]`)).toHaveText(`dataset #${ds} field log at two caps`);
    await picker.selectOption(`dataset:${ds}`);
    const card = app.getByTestId('comparison');
    await expect(card).toBeVisible({ timeout: 30_000 });
    await expect(card.locator('thead th').nth(2)).toContainText(`dataset #${ds} · field log at two caps`);
    await expect(app.getByTestId('efficiency-plot').locator('.legend')).toContainText(`dataset #${ds} · field log at two caps`);

    const overhead = (await app.getByTestId('overhead-value').innerText()).replace(/\s*W$/, '');
    const db = join(process.env.CAPLAB_E2E_DIR!, info.project.name === 'electron' ? 'electron.db' : 'lab.db');
    const cli = JSON.parse(
      execFileSync(process.execPath, ['bin/caplab.mjs', 'compare', String(sweep), '--dataset', String(ds), '--overhead', overhead, '--json', '--db', db], { encoding: 'utf8' }),
    ) as CliComparison;
    expect(cli.sweeps).toHaveLength(2);
    expect(cli.sweeps[1]!.label).toMatch(new RegExp(`^dataset ${ds} `));
    const rows = card.locator('tbody tr');
    // The CLI's null best cap is "no answer" on the page (it read "– W").
    const words = (w: number | null | undefined) => (w == null ? 'no answer' : `${w} W`);
    for (const [selector, i] of [['max-efficiency', 1], ['min-energy-slowdown', 2], ['min-edp', 3], ['weighted', 4]] as const) {
      const row = rows.nth(i);
      await expect(row.locator('th')).toHaveText(`best cap, ${selector}`);
      await expect(row.locator('td').nth(0)).toHaveText(words(cli.sweeps[0]!.best[selector]));
      await expect(row.locator('td').nth(1)).toHaveText(words(cli.sweeps[1]!.best[selector]));
    }
    const [base, other] = [cli.sweeps[0]!.peak_efficiency!, cli.sweeps[1]!.peak_efficiency!];
    const peak = rows.nth(5);
    await expect(peak.locator('td').nth(0)).toHaveText(sig3(base));
    const d = (other / base - 1) * 100;
    await expect(peak.locator('td').nth(1)).toHaveText(`${sig3(other)} (${d >= 0 ? '+' : ''}${d.toFixed(1)} %)`);

    if (process.env.CAPLAB_SCREENSHOTS && info.project.name === 'chromium') {
      await app.setViewportSize({ width: 1440, height: 1000 });
      await card.scrollIntoViewIfNeeded();
      await app.waitForTimeout(1000);
      await app.screenshot({ path: `${process.env.CAPLAB_SCREENSHOTS_DIR ?? 'docs/screenshots'}/results-compare-dataset.png` });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
