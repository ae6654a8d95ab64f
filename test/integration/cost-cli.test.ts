// Cost and carbon through the real CLI on a small simulated sweep: analyze (text and --json), a tariff file with a
// price CSV read as the facility planner reads it, export analysis (CSV columns), export json, and the report.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../helpers/cli';
import { tempDir } from '../helpers/tmp';
import { labEnv, recordSimSweeps } from '../helpers/sim-sweep';
import type { AnalysisResult } from '../../src/shared/analysis';
import { ExportBundle } from '../../src/shared/export';

const tmp = tempDir('caplab-cost-');
afterAll(() => tmp.cleanup());
const env = labEnv(tmp.dir);
let id = 0;

beforeAll(async () => {
  id = (await recordSimSweeps(tmp.dir, ['h100-sxm'], { caps: [300, 500] }))[0]!;
}, 240_000);

const analyze = async (...flags: string[]) => {
  const r = await runCli(['analyze', String(id), '--json', ...flags], env);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as AnalysisResult;
};

/** Rows of a CSV read by Python's csv module (an independent reader), as objects keyed by header. */
const csvRows = (file: string): Record<string, string>[] =>
  JSON.parse(execFileSync('python3', ['-c', 'import csv,json,sys; print(json.dumps(list(csv.DictReader(open(sys.argv[1])))))', file], { encoding: 'utf8' }));

describe('caplab analyze with a tariff', () => {
  it('prices every run’s node energy and gives per cap the cost and carbon per 1,000,000 images', { timeout: 60_000 }, async () => {
    const a = await analyze('--price-per-mwh', '100', '--grid-g-per-kwh', '400', '--currency', 'EUR');
    const cost = a.cost!;
    expect(cost.tariff).toEqual({ price_per_mwh: 100, price_csv: null, carbon_g_per_kwh: 400, carbon_csv: null, currency: 'EUR' });
    expect(cost.runs).toHaveLength(a.runs.length);
    for (const r of a.runs) {
      const c = cost.runs.find((x) => x.run_id === r.run_id)!;
      // J / 3.6e9 = MWh; x 100 per MWh. J / 3.6e6 = kWh; x 400 g / 1000 = kg.
      expect(c.energy_j).toBe(r.node!.energy_j);
      expect(c.cost).toBeCloseTo((r.node!.energy_j! / 3.6e9) * 100, 15);
      expect(c.co2e_kg).toBeCloseTo((r.node!.energy_j! / 3.6e6) * 0.4, 15);
    }
    const g = a.groups[0]!;
    for (const cap of g.caps) {
      const cc = cost.groups[0]!.caps.find((x) => x.cap_w === cap.cap_w)!;
      const counted = a.runs.filter((r) => cap.run_ids.includes(r.run_id) && r.usable && !cap.excluded_runs.some((x) => x.run_id === r.run_id));
      const energy = counted.reduce((s, r) => s + r.node!.energy_j!, 0);
      const units = counted.reduce((s, r) => s + r.units_total!, 0);
      expect(cc.counted_runs).toBe(counted.length);
      expect(cc.cost_per_million_units).toBeCloseTo(((energy / 3.6e9) * 100 * 1e6) / units, 12);
    }
    const total = a.runs.reduce((s, r) => s + r.node!.energy_j!, 0);
    expect(cost.total.cost).toBeCloseTo((total / 3.6e9) * 100, 15);

    const text = await runCli(['analyze', String(id), '--price-per-mwh', '100', '--grid-g-per-kwh', '400', '--currency', 'EUR'], env);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('cost and carbon — 100 EUR/MWh, 400 g CO2e/kWh');
    expect(text.stdout).toMatch(/EUR per 1M images\s+kg CO2e per 1M images/);
    expect(text.stdout).toMatch(new RegExp(`sweep total: ${a.runs.length} runs`));
    // Without a tariff nothing is priced.
    expect((await analyze()).cost).toBeUndefined();
  });

  it('reads a tariff file as the planner does (price CSV relative to the file) and refuses a missing CSV', { timeout: 60_000 }, async () => {
    const dir = join(tmp.dir, 'tariff');
    mkdirSync(dir, { recursive: true });
    // One reading: in force all year, so every run pays 120 per MWh.
    writeFileSync(join(dir, 'prices.csv'), 'timestamp,price\n2025-01-01T00:00:00Z,120\n');
    writeFileSync(join(dir, 'site.yaml'), 'tariff:\n  price_csv: prices.csv\n  currency: CHF\n  carbon_g_per_kwh: 30\n');
    const a = await analyze('--tariff', join(dir, 'site.yaml'));
    expect(a.cost!.tariff).toMatchObject({ price_csv: join(dir, 'prices.csv'), currency: 'CHF', carbon_g_per_kwh: 30, price_per_mwh: null });
    expect(a.cost!.method).toMatch(/spread evenly/);
    for (const c of a.cost!.runs) {
      expect(c.price_per_mwh).toBe(120);
      expect(c.cost).toBeCloseTo((c.energy_j / 3.6e9) * 120, 15);
    }
    // A flag overrides the file.
    expect((await analyze('--tariff', join(dir, 'site.yaml'), '--grid-g-per-kwh', '90')).cost!.tariff.carbon_g_per_kwh).toBe(90);
    const bad = await runCli(['analyze', String(id), '--price-csv', join(dir, 'nope.csv')], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/tariff\.price_csv: cannot read .*nope\.csv: ENOENT/);
    const neg = await runCli(['analyze', String(id), '--price-per-mwh=-5'], env);
    expect(neg.code).toBe(2);
    expect(neg.stderr).toMatch(/--price-per-mwh must be a number >= 0/);
  });
});

describe('exports and the report with a tariff', () => {
  it('export analysis ends the caps and run tables with the cost columns; export json carries results.cost', { timeout: 60_000 }, async () => {
    const dir = join(tmp.dir, 'tables');
    const flags = ['--price-per-mwh', '100', '--grid-g-per-kwh', '400'];
    const r = await runCli(['export', 'analysis', String(id), '--out-dir', dir, ...flags], env);
    expect(r.code, r.stderr).toBe(0);
    const a = await analyze(...flags);
    const caps = csvRows(join(dir, `sweep-${id}-caps.csv`));
    const want = a.cost!.groups[0]!.caps;
    expect(caps.map((c) => Number(c['cost_per_million_units [USD]']))).toEqual(want.map((c) => c.cost_per_million_units));
    expect(caps.map((c) => Number(c['co2e [kg]']))).toEqual(want.map((c) => c.co2e_kg));
    const runs = csvRows(join(dir, `sweep-${id}-run-analysis.csv`));
    expect(runs.map((x) => Number(x['cost [USD]']))).toEqual(a.runs.map((x) => a.cost!.runs.find((c) => c.run_id === x.run_id)!.cost));
    // Without a tariff the tables are as before: no cost column.
    const plain = join(tmp.dir, 'plain');
    expect((await runCli(['export', 'analysis', String(id), '--out-dir', plain], env)).code).toBe(0);
    expect(Object.keys(csvRows(join(plain, `sweep-${id}-caps.csv`))[0]!).some((k) => k.startsWith('cost'))).toBe(false);

    const file = join(tmp.dir, 'sweep.json');
    expect((await runCli(['export', 'json', String(id), '--out', file, ...flags], env)).code).toBe(0);
    const bundle = ExportBundle.parse(JSON.parse(readFileSync(file, 'utf8')));
    expect(bundle.results!.cost!.total).toEqual(a.cost!.total);
    const refused = await runCli(['export', 'runs', String(id), '--csv', join(dir, 'runs.csv'), ...flags], env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/export runs has no cost and carbon/);
  });

  it('the PDF report has a Cost and carbon section with the analysis’ per-cap figures', { timeout: 180_000 }, async () => {
    const pdf = join(tmp.dir, 'r.pdf');
    const flags = ['--price-per-mwh', '100', '--grid-g-per-kwh', '400', '--currency', 'EUR'];
    const r = await runCli(['report', String(id), '--pdf', pdf, ...flags], env);
    expect(r.code, r.stderr).toBe(0);
    const text = execFileSync('pdftotext', ['-layout', pdf, '-'], { encoding: 'utf8' });
    expect(text).toContain('Cost and carbon');
    expect(text).toContain('Tariff: 100 EUR/MWh, 400 g CO2e/kWh.');
    const a = await analyze(...flags);
    const sig = (v: number) => (Math.abs(v) >= 100 ? v.toFixed(0) : v.toFixed(Math.min(6, 2 - Math.floor(Math.log10(Math.abs(v))))));
    for (const c of a.cost!.groups[0]!.caps) expect(text).toMatch(new RegExp(`${c.cap_w} W\\s+${c.runs}\\s+\\S+\\s+${sig(c.cost!)}\\s+${sig(c.co2e_kg!)}\\s+${sig(c.cost_per_million_units!)}`));
    // Without a tariff the section is not there.
    const html = join(tmp.dir, 'plain.html');
    expect((await runCli(['report', String(id), '--html', html], env)).code).toBe(0);
    expect(readFileSync(html, 'utf8')).not.toContain('Cost and carbon');
  });
});
