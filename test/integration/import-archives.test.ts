// caplab import of zip archives, NLR aggregated Parquet profiles and CapLab's own JSON export, through the real CLI
// on real SQLite files; zips are written by Python's zipfile (Debian python3), bad ones built to be bad.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { asyncBufferFromFile, parquetReadObjects } from 'hyparquet';
import { parquetWriteFile } from 'hyparquet-writer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readNlrParquet } from '../../src/core/import/formats/nlr-parquet';
import { runCli } from '../helpers/cli';
import { labEnv, recordSimSweeps } from '../helpers/sim-sweep';
import { importTestEnv, json } from '../helpers/import-env';
import { tempDir } from '../helpers/tmp';

const { tmp, fx, freshDb } = importTestEnv('caplab-import-zip-');

interface Outcome {
  dataset: { id: number; samples: number; format: string; files: { path: string }[]; report: { devices: { key: string; kind: string }[] }; segments: { label: string; origin: string; start: number; end: number }[] } | null;
  duplicate_of: unknown;
  sweeps: { sweep_id: number; duplicate_of_sweep: number | null }[];
  archives: { path: string; members: number }[];
}

/** Writes a zip with Python's zipfile: members as [name in archive, file on disk or bytes spec]. */
function zip(out: string, members: [string, string][], compress = true): string {
  const py = `
import json, sys, zipfile
out, members, deflate = sys.argv[1], json.loads(sys.argv[2]), sys.argv[3] == '1'
with zipfile.ZipFile(out, 'w', zipfile.ZIP_DEFLATED if deflate else zipfile.ZIP_STORED) as z:
    for name, src in members:
        if src.startswith('zeros:'):
            z.writestr(zipfile.ZipInfo(name), b'0' * int(src[6:]), compress_type=zipfile.ZIP_DEFLATED)
        else:
            z.writestr(zipfile.ZipInfo(name), open(src, 'rb').read(), compress_type=zipfile.ZIP_DEFLATED if deflate else zipfile.ZIP_STORED)
`;
  execFileSync('/usr/bin/python3', ['-c', py, out, JSON.stringify(members), compress ? '1' : '0']);
  return out;
}

function counts(db: string): { datasets: number; samples: number; files: number; devices: number } {
  const d = new Database(db, { readonly: true });
  try {
    const one = (sql: string) => (d.prepare(sql).get() as { n: number | null }).n ?? 0;
    return {
      datasets: one('SELECT COUNT(*) AS n FROM datasets'),
      samples: one('SELECT SUM(n) AS n FROM sample_blocks'),
      files: one('SELECT COUNT(*) AS n FROM dataset_files'),
      devices: one("SELECT COUNT(*) AS n FROM devices WHERE host LIKE 'dataset:%'"),
    };
  } finally {
    d.close();
  }
}

describe('NLR aggregated Parquet profiles with metadata.csv', () => {
  const root = fx('nlr-aggregated');
  const results = join(root, 'llama2-70b-lora', 'results');

  it('reads a profile one row group at a time with its values exact', async () => {
    const file = join(results, '000002.parquet');
    const fractions: number[] = [];
    const got: { t: number; w: number }[] = [];
    const r = await readNlrParquet(await asyncBufferFromFile(file), {
      file,
      workload: 'w',
      label: 'w 2',
      t0: 100,
      emit: (b) => {
        for (let i = 0; i < b.n; i++) got.push({ t: b.t[i]!, w: b.cols.power_avg_w[i]! });
      },
      onFraction: (x) => fractions.push(x),
    });
    // 225 rows in row groups of 64: four reads, never the whole file as objects.
    expect(fractions).toEqual([64 / 225, 128 / 225, 192 / 225, 1]);
    const rows = (await parquetReadObjects({ file: await asyncBufferFromFile(file) })) as { 'timestep[s]': number; 'power[W]': number }[];
    expect(got).toEqual(rows.map((x) => ({ t: 100 + x['timestep[s]'], w: x['power[W]'] })));
    expect(r.report).toMatchObject({ rows_read: 225, rows_skipped: 0, clock: 'relative', columns: [expect.objectContaining({ source: 'power[W]', unit: 'W', sensor_kind: 'average' })] });
    expect(r.segments).toEqual([{ name: 'w 2', start: 100, end: 100 + 44.8, workload: 'w' }]);
  });

  it('imports the workload tree: one node series, the profiles end to end, a segment each named from metadata.csv', async () => {
    const env = freshDb();
    const r = await runCli(['import', root, '--json'], env);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const o = json<Outcome>(r.stdout);
    expect(o.dataset).toMatchObject({ samples: 450, format: 'nlr-parquet', report: { devices: [{ key: 'node:llama2-70b-lora', kind: 'node', rows: 450 }] } });
    const segs = o.dataset!.segments.map((s) => ({ label: s.label, origin: s.origin, start: s.start, end: s.end }));
    expect(segs).toEqual([
      { label: 'llama2-70b-lora 000001 (nodes=1)', origin: 'structure', start: 0, end: 44.8 },
      { label: 'llama2-70b-lora 000002 (nodes=2)', origin: 'structure', start: 54.8, end: 54.8 + 44.8 },
    ]);
    // The loaded phase of the 2-node profile: 2 x 2,800 W (+-20 W noise) from t0 + 10 s to t0 + 40 s.
    const e = await runCli(['export', 'samples', '--dataset', String(o.dataset!.id), '--from', '65', '--to', '94', '--columns', 't,power_w,power_kind', '--csv', join(tmp.dir, 'nlr.csv')], env);
    expect(e.code).toBe(0);
    const rows = readFileSync(join(tmp.dir, 'nlr.csv'), 'utf8').trim().split('\n').slice(1).map((l) => l.split(','));
    expect(new Set(rows.map((r) => r[2]))).toEqual(new Set(['average']));
    const watts = rows.map((r) => Number(r[1]));
    expect(watts.length).toBeGreaterThan(100);
    expect(watts.every((w) => Math.abs(w - 5600) <= 20)).toBe(true);
    // Stored as what it is: node-level power (GPU + CPU summed over the nodes), not a GPU; its energy says so.
    const shown = json<{ devices: { kind: string; name: string }[] }>((await runCli(['datasets', String(o.dataset!.id), '--json'], env)).stdout);
    expect(shown.devices).toEqual([expect.objectContaining({ kind: 'node', name: 'llama2-70b-lora' })]);
    const en = await runCli(['energy', '--dataset', String(o.dataset!.id), '--from', '65', '--to', '94', '--json'], env);
    expect(en.code).toBe(0);
    const energy = json<{ power_of: string; energy_j: number; warnings: string[] }>(en.stdout);
    expect(energy.power_of).toBe('node');
    expect(Math.abs(energy.energy_j / (5600 * 29) - 1)).toBeLessThan(0.01);
    expect(energy.warnings).toContain('no GPU series in this dataset: the energy is of its node-level (GPU + CPU, summed over the nodes) power, not of GPUs alone');
    const an = json<{ warnings: string[]; segments: { energy: { power_of: string } }[] }>((await runCli(['analyze', '--dataset', String(o.dataset!.id), '--json'], env)).stdout);
    expect(an.segments.map((x) => x.energy.power_of)).toEqual(['node', 'node']);
    expect(an.warnings).toContain("the dataset's power is node-level (GPU + CPU, summed over the nodes): efficiency is work per joule of that power, with no node overhead added");
  });

  it('reads metadata.csv of other documented columns (extras kept); one naming no results file fails naming it and the missing column', async () => {
    const tree = join(tmp.dir, 'nlr-meta', 'stable-diffusion');
    mkdirSync(join(tree, 'results'), { recursive: true });
    cpSync(join(results, '000001.parquet'), join(tree, 'results', '000001.parquet'));
    cpSync(join(results, '000002.parquet'), join(tree, 'results', '000002.parquet'));
    writeFileSync(join(tree, 'metadata.csv'), 'num_nodes,replicate,file,comment\n1,1,000001.parquet,warm start\n2,1,000002.parquet,\n');
    const env = freshDb();
    const ok = await runCli(['import', tree, '--json'], env);
    expect(ok.code).toBe(0);
    expect(json<Outcome>(ok.stdout).dataset!.segments.map((s) => s.label)).toEqual([
      'stable-diffusion 000001 (num_nodes=1, replicate=1, comment=warm start)',
      'stable-diffusion 000002 (num_nodes=2, replicate=1, comment=)',
    ]);
    const bad = join(tmp.dir, 'nlr-meta-bad', 'stable-diffusion');
    cpSync(tree, bad, { recursive: true });
    writeFileSync(join(bad, 'metadata.csv'), 'workload,nodes\nsd,1\nsd,1\n');
    const fresh = freshDb();
    const r = await runCli(['import', bad], fresh);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${join(bad, 'metadata.csv')}:1: no column names the results files: expected one (such as id)`);
    expect(counts(fresh.CAPLAB_DB)).toEqual({ datasets: 0, samples: 0, files: 0, devices: 0 });
  });

  it('names the file when a Parquet file is truncated or holds other columns, writing nothing', async () => {
    const env = freshDb();
    const bad = join(tmp.dir, 'other.parquet');
    cpSync(fx('nlr-aggregated/llama2-70b-lora/results/000001.parquet'), bad);
    truncateSync(bad, 1000);
    const r = await runCli(['import', bad], env);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${bad}: unreadable Parquet`);
    const foreign = join(tmp.dir, 'foreign.parquet');
    parquetWriteFile({ filename: foreign, columnData: [{ name: 't', data: [0, 1], type: 'DOUBLE' }, { name: 'watts', data: [1, 2], type: 'DOUBLE' }] });
    const r2 = await runCli(['import', foreign], env);
    expect(r2.code).toBe(2);
    expect(r2.stderr).toContain(`${foreign}: not an NLR aggregated profile: expected columns timestep[s] and power[W], found t, watts`);
    expect(counts(env.CAPLAB_DB)).toEqual({ datasets: 0, samples: 0, files: 0, devices: 0 });
  });
});

describe('zip archives', () => {
  const logs = ['nvidia-smi-seed.csv', 'wattameter-node.log', 'dcgmi-dmon.txt', 'zeus-windows.csv'];

  it('imports each member with its own importer, the same samples as the files themselves, with a summary', async () => {
    const archive = zip(join(tmp.dir, 'logs.zip'), logs.map((f) => [`logs/${f}`, fx(f)]));
    const p = await runCli(['import', ...logs.map(fx), '--tz', 'UTC', '--json'], freshDb());
    expect(p.stderr + p.code).toBe('0');
    const plain = json<Outcome>(p.stdout);
    const env = freshDb();
    const r = await runCli(['import', archive, '--tz', 'UTC'], env);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`${archive}: 4 member(s) read from the zip archive`);
    expect(r.stdout).toMatch(/dataset 1 "logs.zip": 4 file\(s\), format nvidia-smi\+wattameter\+dcgm-dmon\+zeus, 28 samples/);
    expect(plain.dataset!.samples).toBe(28);
    const ds = json<{ files: { path: string; format: string }[] }>((await runCli(['datasets', '1', '--json'], env)).stdout);
    expect(ds.files.map((f) => [f.path, f.format])).toEqual([
      [join(archive, 'logs', 'dcgmi-dmon.txt'), 'dcgm-dmon'],
      [join(archive, 'logs', 'nvidia-smi-seed.csv'), 'nvidia-smi'],
      [join(archive, 'logs', 'wattameter-node.log'), 'wattameter'],
      [join(archive, 'logs', 'zeus-windows.csv'), 'zeus'],
    ].sort((a, b) => logs.indexOf(a[0]!.split('/').pop()!) - logs.indexOf(b[0]!.split('/').pop()!)));
    // The same archive again: found by content, nothing written.
    const again = json<Outcome>((await runCli(['import', archive, '--tz', 'UTC', '--json'], env)).stdout);
    expect(again.dataset).toBeNull();
    expect(counts(env.CAPLAB_DB).datasets).toBe(1);
  });

  it('opens zips inside a directory (an hpc-ai-perf-bench tree zipped per cap keeps its per-cap segments)', async () => {
    const dir = join(tmp.dir, 'tree');
    mkdirSync(dir);
    const tree = fx('hpcai-tree');
    const members = execFileSync('find', [tree, '-type', 'f'], { encoding: 'utf8' }).trim().split('\n').map((p) => [p.slice(tree.length + 1), p] as [string, string]);
    zip(join(dir, 'run.zip'), members);
    cpSync(fx('zeus-windows.csv'), join(dir, 'zeus-windows.csv'));
    const direct = json<Outcome>((await runCli(['import', tree, '--tz', 'UTC', '--json'], freshDb())).stdout);
    const r = await runCli(['import', dir, '--tz', 'UTC', '--json'], freshDb());
    expect(r.code).toBe(0);
    const o = json<Outcome>(r.stdout);
    expect(o.archives).toEqual([{ path: join(dir, 'run.zip'), members: members.length }]);
    expect(o.dataset!.samples).toBe(direct.dataset!.samples + 6);
    const capSegs = (x: Outcome) => x.dataset!.segments.filter((s) => /Watts/.test(s.label)).map((s) => [s.label.split('/').pop(), s.start, s.end]);
    expect(capSegs(o)).toEqual(capSegs(direct));
    expect(capSegs(o).length).toBeGreaterThan(1);
  });

  it('refuses truncated archives, zip bombs and member names that climb out, leaving the database untouched', async () => {
    const env = freshDb();
    expect((await runCli(['import', fx('nvidia-smi-seed.csv'), '--tz', 'UTC'], env)).code).toBe(0);
    const before = counts(env.CAPLAB_DB);
    const truncated = zip(join(tmp.dir, 'truncated.zip'), logs.map((f) => [f, fx(f)]));
    truncateSync(truncated, Math.floor(statSync(truncated).size / 2));
    const bomb = zip(join(tmp.dir, 'bomb.zip'), [['zeros.csv', 'zeros:50000000']]);
    const escape = zip(join(tmp.dir, 'escape.zip'), [['../../etc/evil.csv', fx('nvidia-smi-seed.csv')]]);
    const mixed = join(tmp.dir, 'mixed');
    mkdirSync(mixed);
    cpSync(fx('wattameter-node.log'), join(mixed, 'a.log'));
    cpSync(bomb, join(mixed, 'b.zip'));
    const cases: [string, RegExp][] = [
      [truncated, /truncated\.zip: not a zip archive, or truncated/],
      [bomb, /bomb\.zip: member zeros\.csv inflates \d+-fold .* refused as a zip bomb/],
      [escape, /escape\.zip: unsafe member name \(invalid relative path: \.\.\/\.\.\/etc\/evil\.csv\): refused/],
      [mixed, /b\.zip: member zeros\.csv inflates/],
    ];
    for (const [path, msg] of cases) {
      const r = await runCli(['import', path, '--tz', 'UTC'], env);
      expect(r.code, path).toBe(2);
      expect(r.stderr, path).toMatch(msg);
      expect(counts(env.CAPLAB_DB), path).toEqual(before);
    }
  });
});

describe("CapLab's own JSON export", () => {
  const dir = tempDir('caplab-import-bundle-');
  afterAll(() => dir.cleanup());
  const env = labEnv(dir.dir);
  let sweepId = 0;
  beforeAll(async () => {
    sweepId = (await recordSimSweeps(dir.dir, ['h100-sxm'], { caps: [300, 500] }))[0]!;
  }, 240_000);

  it('re-imports through caplab import (auto-detected): the same samples, exactly, and the same analysis', { timeout: 120_000 }, async () => {
    const file = join(dir.dir, 'sweep.json');
    expect((await runCli(['export', 'json', String(sweepId), '--out', file], env)).code).toBe(0);
    const original = JSON.parse((await runCli(['analyze', String(sweepId), '--json'], env)).stdout);
    const fresh = { ...env, CAPLAB_DB: join(dir.dir, 'fresh.db') };
    const r = await runCli(['import', file], fresh);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^sweep 1 ".*" imported from .*sweep\.json \(CapLab export\): caplab analyze 1$/m);
    const again = await runCli(['analyze', '1', '--json'], fresh);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toEqual(original);
    const back = join(dir.dir, 'back.json');
    expect((await runCli(['export', 'json', '1', '--out', back], fresh)).code).toBe(0);
    const a = JSON.parse(readFileSync(file, 'utf8'));
    const b = JSON.parse(readFileSync(back, 'utf8'));
    expect(b.samples).toEqual(a.samples);
    expect(b.samples.reduce((s: number, x: { t: number[] }) => s + x.t.length, 0)).toBeGreaterThan(100);
    expect(b.metrics).toEqual(a.metrics);
    expect(b.runs.map((x: { throughput: number }) => x.throughput)).toEqual(a.runs.map((x: { throughput: number }) => x.throughput));
    // The same file again (named format this time) is found, not duplicated.
    const dup = json<Outcome>((await runCli(['import', file, '--format', 'caplab-json', '--json'], fresh)).stdout);
    expect(dup.sweeps).toEqual([expect.objectContaining({ sweep_id: 1, duplicate_of_sweep: 1 })]);
    const db = new Database(fresh.CAPLAB_DB, { readonly: true });
    expect(db.prepare('SELECT COUNT(*) AS n FROM sweeps').get()).toEqual({ n: 1 });
    db.close();
  });

  it('a dataset export (caplab export json --dataset) re-imports: the same samples, segments and analyze --dataset', { timeout: 120_000 }, async () => {
    // The hpc-ai-perf-bench tree: per-cap segments with units, so the analysis includes the per-cap sweep answer.
    const src = { ...env, CAPLAB_DB: join(dir.dir, 'tree.db') };
    const imported = json<Outcome>((await runCli(['import', fx('hpcai-tree'), '--tz', 'UTC', '--json'], src)).stdout);
    const id = String(imported.dataset!.id);
    const file = join(dir.dir, 'dataset.json');
    const ex = await runCli(['export', 'json', '--dataset', id, '--out', file, '--json'], src);
    expect(ex.code).toBe(0);
    expect(json<{ written: { source: string }[] }>(ex.stdout).written).toEqual([expect.objectContaining({ kind: 'json', source: `dataset ${id}` })]);
    const fresh = { ...env, CAPLAB_DB: join(dir.dir, 'fresh-dataset.db') };
    // Another dataset first, so the new dataset's id and device rows differ from the original's (ids are remapped).
    expect((await runCli(['import', fx('dcgmi-dmon.txt'), '--tz', 'UTC'], fresh)).code).toBe(0);
    const r = await runCli(['import', file, '--json'], fresh);
    expect(r.code).toBe(0);
    const o = json<Outcome & { datasets: { dataset_id: number; duplicate_of_dataset: number | null }[] }>(r.stdout);
    expect(o.datasets).toEqual([expect.objectContaining({ duplicate_of_dataset: null })]);
    const newId = String(o.dataset!.id);
    expect(newId).not.toBe(id);
    // Samples: every column of every device, the same values.
    const samples = async (e: typeof env, ds: string, out: string) => {
      expect((await runCli(['export', 'samples', '--dataset', ds, '--csv', join(dir.dir, out)], e)).code).toBe(0);
      return readFileSync(join(dir.dir, out), 'utf8').replaceAll(/dataset:\d+\//g, 'dataset:N/');
    };
    const before = await samples(src, id, 'a.csv');
    expect(before.split('\n').length).toBeGreaterThan(10);
    expect(await samples(fresh, newId, 'b.csv')).toBe(before);
    // Segments and devices, ids aside.
    const shown = async (e: typeof env, ds: string) => {
      const d = json<{ segments: Record<string, unknown>[]; devices: Record<string, unknown>[]; samples: number; t_start: number; t_end: number; report: unknown }>((await runCli(['datasets', ds, '--json'], e)).stdout);
      return {
        segments: d.segments.map(({ id: _i, dataset_id: _d, ...x }) => x),
        devices: d.devices.map(({ id: _i, key, ...x }) => ({ ...x, key: String(key).replace(/^dataset:\d+\//, '') })),
        samples: d.samples,
        span: [d.t_start, d.t_end],
        report: d.report,
      };
    };
    expect(await shown(fresh, newId)).toEqual(await shown(src, id));
    // The same analysis, segment ids and the dataset id aside.
    const ids = new Set(['dataset_id', 'id', 'segment_id', 'run_id', 'run_ids']);
    const analysis = async (e: typeof env, ds: string) =>
      JSON.parse((await runCli(['analyze', '--dataset', ds, '--json'], e)).stdout.replaceAll(/dataset:\d+\//g, 'dataset:N/'), (k, v) => (ids.has(k) ? (Array.isArray(v) ? v.length : 0) : v));
    const a1 = await analysis(src, id);
    expect(a1.sweep.groups[0].caps.map((c: { cap_w: number }) => c.cap_w)).toEqual([300, 500]);
    expect(await analysis(fresh, newId)).toEqual(a1);
    // The bundle carries that analysis too; the same file again is found, not duplicated.
    expect(JSON.parse(readFileSync(file, 'utf8')).analysis.segments).toHaveLength(2);
    const dup = json<Outcome & { datasets: { duplicate_of_dataset: number | null }[] }>((await runCli(['import', file, '--json'], fresh)).stdout);
    expect(dup.datasets).toEqual([expect.objectContaining({ duplicate_of_dataset: Number(newId) })]);
    expect(dup.dataset).toBeNull();
  });

  it('refuses a truncated or foreign JSON file, naming it, with nothing written', { timeout: 60_000 }, async () => {
    const file = join(dir.dir, 'sweep.json');
    const cut = join(dir.dir, 'cut.json');
    writeFileSync(cut, readFileSync(file, 'utf8').slice(0, 5000));
    const other = join(dir.dir, 'other.json');
    writeFileSync(other, JSON.stringify({ schema: 'caplab.export/9', kind: 'sweep' }));
    const fresh = { ...env, CAPLAB_DB: join(dir.dir, 'bad.db') };
    const r1 = await runCli(['import', cut, '--format', 'caplab-json'], fresh);
    expect(r1.code).toBe(2);
    expect(r1.stderr).toContain(`${cut}: not valid JSON`);
    const r2 = await runCli(['import', other], fresh);
    expect(r2.code).toBe(2);
    expect(r2.stderr).toContain(`${other}: not a CapLab export of schema caplab.export/1 (schema: "caplab.export/9")`);
    const db = new Database(fresh.CAPLAB_DB, { readonly: true });
    expect(db.prepare('SELECT COUNT(*) AS n FROM sweeps').get()).toEqual({ n: 0 });
    db.close();
  });
});
