import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { asyncBufferFromFile, parquetMetadataAsync, parquetReadObjects } from 'hyparquet';
import { runCli } from '../helpers/cli';
import { tempDir } from '../helpers/tmp';
import { labEnv, recordSimSweeps } from '../helpers/sim-sweep';
import { openDb } from '../../src/main/lab/store/db';
import { importSweepBundle } from '../../src/main/lab/store/bundle-io';
import { devicesOfRun } from '../../src/main/lab/store/devices';
import { samplesOfRun } from '../../src/main/lab/store/samples';
import { ExportBundle, SAMPLE_EXPORT_COLUMNS } from '../../src/shared/export';

const tmp = tempDir('caplab-export-');
afterAll(() => tmp.cleanup());
const env = labEnv(tmp.dir);
let sweepId = 0;
let runId = 0;
const COLS = SAMPLE_EXPORT_COLUMNS.map((c) => c.name);
type Row = Record<string, number | string | null>;

/** The stored samples of a run, through the store's own reads (every device of the run), as export rows. */
function stored(run: number): Row[] {
  const db = openDb(env.CAPLAB_DB, { readonly: true });
  try {
    return devicesOfRun(db, run).flatMap((d) => samplesOfRun(db, run, d.id).map((r) => ({ ...Object.fromEntries(COLS.map((c) => [c, r[c] ?? null])), device: d.device_key }) as Row));
  } finally {
    db.close();
  }
}

/** pandas reads the CSV (round-trip float parsing) and hands every row back as JSON (NaN -> null). */
function pandasRows(file: string, iso = false): Row[] {
  const py = `
import json, sys, pandas as pd
df = pd.read_csv(sys.argv[1], float_precision='round_trip', keep_default_na=False, na_values=[''])
if ${iso ? 'True' : 'False'}:
    col = df.columns[0]
    df[col] = pd.to_datetime(df[col], utc=True).astype('int64')
rows = [{k: (None if (isinstance(v, float) and v != v) else v) for k, v in r.items()} for r in df.to_dict(orient='records')]
print(json.dumps({'columns': list(df.columns), 'rows': rows}, default=lambda o: o.item()))
`;
  const out = JSON.parse(execFileSync('/usr/bin/python3', ['-c', py, file], { encoding: 'utf8', maxBuffer: 1 << 28 })) as { columns: string[]; rows: Row[] };
  return out.rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k.replace(/ \[.*\]$/, ''), v])));
}

beforeAll(async () => {
  sweepId = (await recordSimSweeps(tmp.dir, ['h100-sxm'], { caps: [300, 500] }))[0]!;
  const db = openDb(env.CAPLAB_DB, { readonly: true });
  runId = (db.prepare('SELECT id FROM runs WHERE sweep_id = ? ORDER BY id LIMIT 1').get(sweepId) as { id: number }).id;
  db.close();
}, 240_000);

describe('caplab export', () => {
  it('writes a run’s samples as CSV that pandas reads back to exactly the stored values, units in the header', { timeout: 60_000 }, async () => {
    const file = join(tmp.dir, 'run.csv');
    const r = await runCli(['export', 'samples', '--run', String(runId), '--csv', file, '--json'], env);
    expect(r.code).toBe(0);
    const want = stored(runId);
    expect(want.length).toBeGreaterThan(100);
    expect(JSON.parse(r.stdout).written[0]).toMatchObject({ kind: 'csv', path: file, rows: want.length, source: `run ${runId}` });
    expect(readFileSync(file, 'utf8').split('\n')[0]).toBe(
      't [s since epoch],power_w [W],power_kind,power_avg_w [W],energy_mj [mJ],sm_clock_mhz [MHz],mem_clock_mhz [MHz],temp_c [°C],util_gpu [%],util_mem [%],mem_used_mb [MB],limit_w [W],throttle_reasons [bits],device',
    );
    expect(pandasRows(file)).toEqual(want);
  });

  it('writes ISO-8601 times that pandas parses to the stored instants (to the microsecond)', { timeout: 60_000 }, async () => {
    const file = join(tmp.dir, 'iso.csv');
    expect((await runCli(['export', 'samples', '--run', String(runId), '--columns', 't,power_w', '--time', 'iso', '--csv', file], env)).code).toBe(0);
    expect(readFileSync(file, 'utf8')).toMatch(/^t \[ISO-8601 UTC\],power_w \[W\],device\n\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z,/);
    const got = pandasRows(file, true);
    const want = stored(runId);
    expect(got.length).toBe(want.length);
    got.forEach((row, i) => {
      expect(Math.abs((row.t as number) / 1e9 - (want[i]!.t as number))).toBeLessThan(1e-6);
      expect(row.power_w).toBe(want[i]!.power_w);
    });
  });

  it('writes Parquet that hyparquet (an independent reader) reads back to exactly the stored values', { timeout: 60_000 }, async () => {
    const file = join(tmp.dir, 'run.parquet');
    expect((await runCli(['export', 'samples', '--run', String(runId), '--parquet', file], env)).code).toBe(0);
    const buf = await asyncBufferFromFile(file);
    const meta = await parquetMetadataAsync(buf);
    expect(JSON.parse(meta.key_value_metadata!.find((k) => k.key === 'caplab.units')!.value!)).toMatchObject({ t: 's since epoch', power_w: 'W', temp_c: '°C' });
    const rows = (await parquetReadObjects({ file: buf })) as Row[];
    const norm = rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === 'bigint' ? Number(v) : (v ?? null)])));
    expect(norm).toEqual(stored(runId));
  });

  it('selects columns and a time range', { timeout: 60_000 }, async () => {
    const all = stored(runId);
    const from = all[10]!.t as number;
    const to = all[20]!.t as number;
    const file = join(tmp.dir, 'range.csv');
    expect((await runCli(['export', 'samples', '--sweep', String(sweepId), '--from', String(from), '--to', String(to), '--columns', 't,temp_c', '--csv', file], env)).code).toBe(0);
    const got = pandasRows(file);
    expect(Object.keys(got[0]!)).toEqual(['t', 'temp_c', 'device']);
    expect(got.map((r) => r.t)).toEqual(all.slice(10, 21).map((r) => r.t));
  });

  it('writes run summaries and every analysis table as CSV with the analysis’ numbers', { timeout: 60_000 }, async () => {
    const dir = join(tmp.dir, 'tables');
    execFileSync('mkdir', ['-p', dir]);
    expect((await runCli(['export', 'runs', String(sweepId), '--csv', join(dir, 'runs.csv')], env)).code).toBe(0);
    const r = await runCli(['export', 'analysis', String(sweepId), '--out-dir', dir, '--overhead', '200', '--json'], env);
    expect(r.code).toBe(0);
    expect(readdirSync(dir).sort()).toEqual(['runs.csv', ...['caps', 'optima', 'pareto', 'run-analysis', 'sensitivity'].map((s) => `sweep-${sweepId}-${s}.csv`)]);
    const analysis = JSON.parse((await runCli(['analyze', String(sweepId), '--overhead', '200', '--json'], env)).stdout);
    const caps = pandasRows(join(dir, `sweep-${sweepId}-caps.csv`));
    expect(caps.map((c) => c.efficiency_mean)).toEqual(analysis.groups[0].caps.map((c: { efficiency: { mean: number } }) => c.efficiency.mean));
    expect(caps.map((c) => c.efficiency_ci_lo)).toEqual(analysis.groups[0].caps.map((c: { efficiency: { ci: { lo: number } } }) => c.efficiency.ci.lo));
    const optima = pandasRows(join(dir, `sweep-${sweepId}-optima.csv`));
    expect(optima.find((o) => o.selector === 'max-efficiency')!.best_cap_w).toBe(analysis.groups[0].optima['max-efficiency'].cap_w);
    const runs = pandasRows(join(dir, 'runs.csv'));
    expect(runs).toHaveLength(4);
  });

  it('writes the whole sweep as JSON that re-imports into a fresh store with the same analysis', { timeout: 60_000 }, async () => {
    const file = join(tmp.dir, 'sweep.json');
    expect((await runCli(['export', 'json', String(sweepId), '--out', file], env)).code).toBe(0);
    const bundle = ExportBundle.parse(JSON.parse(readFileSync(file, 'utf8')));
    expect(bundle.schema).toBe('caplab.export/1');
    expect(bundle.environment.caplab_version).toMatch(/^\d+\.\d+\.\d+/);
    // The run record names the checkout's commit, as the About dialog does.
    const head = execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], { encoding: 'utf8' }).trim();
    expect(bundle.environment.caplab_commit).toMatch(new RegExp(`^${head}(\\+dirty)?$`));
    const original = JSON.parse((await runCli(['analyze', String(sweepId), '--json'], env)).stdout);
    expect(bundle.results).toEqual(original);
    const fresh = join(tmp.dir, 'fresh.db');
    const db = openDb(fresh);
    const id = importSweepBundle(db, bundle);
    db.close();
    const again = await runCli(['analyze', String(id), '--db', fresh, '--json'], env);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toEqual(original);
    // And the samples themselves came through bit for bit.
    const back = JSON.parse(
      (await runCli(['export', 'json', String(id), '--db', fresh, '--out', join(tmp.dir, 'again.json')], env)).code === 0 ? readFileSync(join(tmp.dir, 'again.json'), 'utf8') : '{}',
    );
    expect(back.samples).toEqual(JSON.parse(readFileSync(file, 'utf8')).samples);
  });

  it('rejects unknown ids, unknown columns and unwritable paths, leaving nothing behind', { timeout: 60_000 }, async () => {
    const dir = join(tmp.dir, 'bad');
    execFileSync('mkdir', ['-p', dir]);
    const cases: [string[], string][] = [
      [['export', 'samples', '--run', '9999', '--csv', join(dir, 'x.csv')], 'no run 9999'],
      [['export', 'json', '9999', '--out', join(dir, 'x.json')], 'no sweep 9999'],
      [['export', 'samples', '--run', String(runId), '--columns', 't,watts', '--csv', join(dir, 'x.csv')], 'unknown column "watts"'],
      [['export', 'samples', '--run', String(runId), '--csv', join(dir, 'nope', 'x.csv')], `folder ${join(dir, 'nope')} does not exist`],
      [['export', 'samples', '--run', String(runId), '--parquet', join(dir, 'x.parquet'), '--time', 'iso'], 'Parquet keeps time as epoch seconds'],
      [['export', 'runs', String(sweepId), '--csv', dir], 'it is a folder'],
      [['export', 'bogus'], 'say what to export'],
    ];
    for (const [args, msg] of cases) {
      const r = await runCli(args, env);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toContain(msg);
    }
    expect(readdirSync(dir)).toEqual([]);
  });
});
