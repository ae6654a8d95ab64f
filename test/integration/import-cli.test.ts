// caplab import / datasets / energy --dataset / analyze --dataset, through the real CLI on real SQLite files.
import { copyFileSync, existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { runCli, startCli } from '../helpers/cli';
import { importTestEnv, json } from '../helpers/import-env';
import { nvidiaSmiLog } from '../../bench/gen-power-logs';
import { COUNTER_READ_LAG_S } from '../../src/core/analysis/average-power';

const { tmp, fx, freshDb } = importTestEnv('caplab-import-');

interface Outcome {
  dataset: { id: number; samples: number; devices: { key: string }[]; segments: { origin: string; cap_w: number | null; units_in_window: number | null }[]; report: { rows_skipped: number } } | null;
  duplicate_of: { dataset_id: number } | null;
}

describe('caplab import', () => {
  it.each([
    ['nvidia-smi-seed.csv', 6, 2],
    ['nvidia-smi-units.csv', 4, 1],
    ['rocm_smi_gpu_usage.csv', 120, 4],
    ['wattameter-node.log', 10, 2],
    ['wattameter-rapl.log', 6, 2],
    ['dcgmi-dmon.txt', 6, 2],
    ['zeus-windows.csv', 6, 2],
    ['codecarbon-emissions.csv', 6, 3],
    ['prometheus-dcgm.json', 9, 1],
    ['facility-profile.csv', 3, 1],
  ])('imports %s (auto-detected): %i samples on %i devices', async (file, samples, devices) => {
    const env = freshDb();
    const r = await runCli(['import', fx(file), '--tz', 'UTC', '--json'], env);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const o = json<Outcome>(r.stdout);
    expect(o.dataset!.samples).toBe(samples);
    expect(o.dataset!.devices).toHaveLength(devices);
    const list = await runCli(['datasets', '--json'], env);
    expect(json<{ id: number; samples: number }[]>(list.stdout)).toEqual([expect.objectContaining({ id: o.dataset!.id, samples })]);
  });

  it('imports an hpc-ai-perf-bench MI300X per-cap AMD sampler log named with --format hpcai-rocm-smi: the cap from its directory, the readings as stored', async () => {
    const env = freshDb();
    // As powercap_training_mi300x_4x.sh leaves it: <job>_logs/<W>Watts/rocm_smi_gpu_usage.csv.
    const job = join(tmp.dir, 'llama_benchmark_4xmi300x_logs');
    mkdirSync(join(job, '700Watts'), { recursive: true });
    copyFileSync(fx('rocm_smi_gpu_usage.csv'), join(job, '700Watts', 'rocm_smi_gpu_usage.csv'));
    const r = await runCli(['import', job, '--format', 'hpcai-rocm-smi', '--tz', 'Europe/Berlin', '--json'], env);
    expect(r.code, r.stderr).toBe(0);
    type Shown = { id: number; samples: number; format: string; devices: { key: string; index: number; name: string }[]; segments: { id: number; origin: string; cap_w: number | null }[] };
    type Report = { rows_read: number; rows_skipped: number; skipped: { reason: string; lines: number[] }[]; devices: { key: string; pci_bus_id: string }[]; columns: { source: string; sensor_kind: string | null }[] };
    const o = json<{ dataset: Shown; reports: Report[] }>(r.stdout);
    expect(o.dataset).toMatchObject({ samples: 120, format: 'hpcai-rocm-smi' });
    // The DRM card numbers are the devices' indices.
    expect(o.dataset.devices.map((d) => [d.key.split('/').at(-1), d.index, d.name])).toEqual([
      ['gpu:1', 1, 'GPU 1'],
      ['gpu:2', 2, 'GPU 2'],
      ['gpu:3', 3, 'GPU 3'],
      ['gpu:4', 4, 'GPU 4'],
    ]);
    expect(o.reports[0]!.devices.map((d) => d.pci_bus_id)).toEqual(['0000:05:00.0', '0000:26:00.0', '0000:46:00.0', '0000:65:00.0']);
    expect(o.reports[0]).toMatchObject({ rows_read: 120, rows_skipped: 1, skipped: [{ reason: 'truncated row: 4 of 8 fields', lines: [122] }] });
    expect(o.reports[0]!.columns.find((c) => c.source === 'power.draw')!.sensor_kind).toBe('instant');
    const seg = o.dataset.segments.find((s) => s.origin === 'structure')!;
    expect(seg.cap_w).toBe(700);
    // What the engine reads back: card 1's first tick (09:00:00.013 CET) and its first tick under load, power to the
    // store's quantum (1 mW) of the sampler's 145.606221 and 408.471021 W.
    const page = await runCli(['samples', '--segment', String(seg.id), '--limit', '200', '--json'], env);
    expect(page.code, page.stderr).toBe(0);
    type Sample = { device_key: string; t: number; power_kind: string; power_w: number; sm_clock_mhz: number; mem_clock_mhz: number; util_gpu: number; temp_c: number | null };
    const samples = json<{ samples: Sample[] }>(page.stdout).samples;
    expect(samples).toHaveLength(120);
    const card1 = samples.filter((x) => x.device_key.endsWith('/gpu:1'));
    expect(card1[0]).toMatchObject({ t: Date.parse('2026-11-30T08:00:00.013Z') / 1000, power_kind: 'instant', power_w: 145.606, sm_clock_mhz: 132, mem_clock_mhz: 900, util_gpu: 0, temp_c: 39 });
    expect(card1[15]).toMatchObject({ t: Date.parse('2026-11-30T08:00:01.512Z') / 1000, power_w: 408.471, sm_clock_mhz: 2100, mem_clock_mhz: 1300, util_gpu: 74 });
    expect(samples.filter((x) => x.device_key.endsWith('/gpu:3'))[7]!.temp_c).toBeNull();
  });

  it('detects the same file imported twice and writes nothing the second time', async () => {
    const env = freshDb();
    expect((await runCli(['import', fx('nvidia-smi-seed.csv'), '--tz', 'UTC'], env)).code).toBe(0);
    const again = await runCli(['import', fx('nvidia-smi-seed.csv'), '--tz', 'UTC', '--json'], env);
    expect(again.code).toBe(0);
    expect(json<Outcome>(again.stdout)).toMatchObject({ dataset: null, duplicate_of: { dataset_id: 1 } });
    const db = new Database(env.CAPLAB_DB, { readonly: true });
    expect(db.prepare('SELECT COUNT(*) AS n FROM datasets').get()).toEqual({ n: 1 });
    expect(db.prepare('SELECT SUM(n) AS n FROM sample_blocks').get()).toEqual({ n: 6 });
    db.close();
  });

  it('imports an hpc-ai-perf-bench tree as one sweep-like dataset: per-cap segments with throughput, analysed per cap', async () => {
    const env = freshDb();
    const r = await runCli(['import', fx('hpcai-tree'), '--tz', 'UTC', '--json'], env);
    expect(r.code).toBe(0);
    const o = json<Outcome>(r.stdout);
    expect(o.dataset!.segments.map((s) => [s.origin, s.cap_w])).toEqual([
      ['structure', 300],
      ['structure', 500],
    ]);
    const a = await runCli(['analyze', '--dataset', String(o.dataset!.id), '--json'], env);
    expect(a.code).toBe(0);
    const res = json<{ segments: { throughput: number; energy: { sensor: string; devices: { method: string }[] } }[]; sweep: { groups: { caps: { cap_w: number }[] }[] } }>(a.stdout);
    expect(res.segments.map((s) => s.throughput)).toEqual([expect.closeTo(214.9, 1), expect.closeTo(280, 1)]);
    expect(res.segments[0]!.energy.devices[0]!.method).toBe('1 s average, boxcar tiles');
    expect(res.sweep.groups[0]!.caps.map((c) => c.cap_w)).toEqual([300, 500]);
  });

  it('energy --dataset over a range and a segment names sensor and method', async () => {
    const env = freshDb();
    await runCli(['import', fx('wattameter-node.log'), '--tz', 'UTC'], env);
    const r = await runCli(['energy', '--dataset', '1', '--json'], env);
    expect(r.code).toBe(0);
    const e = json<{ energy_j: number; devices: { sensor: string; method: string; energy_j: number }[] }>(r.stdout);
    // gpu-0 counter: 4124800 - 2651053 mJ, but each reading holds the energy half an NVML update (50 ms) before its
    // stamp: over the stamps' span that is the delta plus the last interval's power (661 W) over the lag at the end,
    // less the first's (201 W) at the start.
    expect(e.devices[0]).toMatchObject({ sensor: 'counter', method: 'energy-counter delta' });
    const watts = (a: number, b: number) => (b - a) / 1000 / 0.1;
    expect(e.devices[0]!.energy_j).toBeCloseTo((4124800 - 2651053) / 1000 + COUNTER_READ_LAG_S * (watts(4058700, 4124800) - watts(2651053, 2671174)), 1);
    // --from/--to (ISO-8601, read to the millisecond) across the log's 2 s flush gap: the counters bridge it.
    const range = await runCli(['energy', '--dataset', '1', '--from', '2026-11-30T08:45:57.873398Z', '--to', '2026-11-30T08:45:59.873402Z', '--json'], env);
    expect(range.code, range.stderr).toBe(0);
    const inRange = json<{ from: number; to: number; devices: { method: string; energy_j: number }[] }>(range.stdout);
    expect(inRange.to - inRange.from).toBeCloseTo(2, 2);
    expect(inRange.devices.map((d) => d.method)).toEqual(['energy-counter delta', 'energy-counter delta']);
    expect(inRange.devices[0]!.energy_j).toBeCloseTo((4058700 - 2736690) / 1000, 1);
    // The read lag moves both edges 50 ms into the readings' intervals: the gap's power (651.7 W) against the last's.
    expect(inRange.devices[1]!.energy_j).toBeCloseTo((3988024 - 2684637) / 1000, 0);
    // --segment N: the segment's window (the automatic one spans the whole log).
    const seg = await runCli(['energy', '--dataset', '1', '--segment', '1', '--json'], env);
    expect(seg.code, seg.stderr).toBe(0);
    const segment = json<{ energy_j: number; from: number; to: number }>(seg.stdout);
    const whole = json<{ from: number; to: number }>(r.stdout);
    expect(segment.from).toBeLessThanOrEqual(whole.from);
    expect(segment.to).toBeGreaterThanOrEqual(whole.to);
    expect(segment.energy_j).toBeGreaterThan(e.energy_j * 0.99);
    const missing = await runCli(['energy', '--dataset', '9'], env);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/no dataset 9/);
    const noDataset = await runCli(['energy', '--from', '0', '--to', '9', '--segment', '1'], env);
    expect(noDataset.code).toBe(2);
    expect(noDataset.stderr).toContain('--segment N is a segment of an imported dataset: give --dataset ID with it');
  });

  it('energy and analyze --dataset state each device’s uncertainty and the total’s: a systematic sensor bound', async () => {
    const env = freshDb();
    await runCli(['import', fx('wattameter-node.log'), '--tz', 'UTC'], env);
    const r = await runCli(['energy', '--dataset', '1', '--json'], env);
    expect(r.code, r.stderr).toBe(0);
    type Bounded = { energy_j: number; duration_s: number; uncertainty_j: number; uncertainty_basis: string };
    const e = json<Bounded & { devices: (Bounded & { method: string })[] }>(r.stdout);
    expect(e.devices.length).toBe(2);
    // Energy counters: NVML's stated max(5 W over the window, 5 % of the reading), and an edge term only where the
    // read lag reaches past the last reading (its two last intervals differ by under 1 W here: under 0.05 J).
    for (const d of e.devices) {
      expect(d.method).toBe('energy-counter delta');
      const sensor = Math.max(5 * d.duration_s, 0.05 * d.energy_j);
      expect(d.uncertainty_j).toBeGreaterThanOrEqual(sensor);
      expect(d.uncertainty_j).toBeLessThan(sensor + 0.05);
      expect(d.uncertainty_basis).toMatch(/^systematic bound: NVML/);
    }
    expect(e.uncertainty_j).toBeCloseTo(e.devices[0]!.uncertainty_j + e.devices[1]!.uncertainty_j, 6);
    expect(e.uncertainty_basis).toMatch(/not a statistical CI/);
    const text = await runCli(['energy', '--dataset', '1'], env);
    expect(text.stdout).toContain(`total ${e.energy_j.toFixed(1)} ± ${e.uncertainty_j.toFixed(1)} J`);
    expect(text.stdout).toMatch(/± is a systematic sensor bound, not a statistical CI/);
    // analyze --dataset: each segment's energy carries the same fields, equal to energy --segment's.
    const a = json<{ segments: { energy: Bounded }[] }>((await runCli(['analyze', '--dataset', '1', '--json'], env)).stdout);
    const seg = json<Bounded>((await runCli(['energy', '--dataset', '1', '--segment', '1', '--json'], env)).stdout);
    expect(a.segments[0]!.energy.uncertainty_j).toBeCloseTo(seg.uncertainty_j, 9);
    expect(a.segments[0]!.energy.uncertainty_j).toBeGreaterThan(0);
  });

  it('datasets ID --delete removes it with its devices; an unknown id is exit 2 (nothing there), as for showing one', async () => {
    const env = freshDb();
    expect((await runCli(['import', fx('dcgmi-dmon.txt'), '--tz', 'UTC'], env)).code).toBe(0);
    const devices = () => {
      const db = new Database(env.CAPLAB_DB, { readonly: true });
      try {
        return (db.prepare("SELECT COUNT(*) n FROM devices WHERE host = 'dataset:1'").get() as { n: number }).n;
      } finally {
        db.close();
      }
    };
    expect(devices()).toBe(2);
    const unknown = await runCli(['datasets', '9', '--delete'], env);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^caplab datasets: no dataset 9 in this database/);
    const del = await runCli(['datasets', '1', '--delete'], env);
    expect(del.code, del.stderr).toBe(0);
    expect(del.stdout).toBe('deleted dataset 1\n');
    const shown = await runCli(['datasets', '1'], env);
    expect(shown.code).toBe(2);
    expect(shown.stderr).toMatch(/no dataset 1/);
    expect(devices()).toBe(0);
  });

  it('bad input: a clear error with file and line, nothing written, the rest of the database untouched', async () => {
    const env = freshDb();
    await runCli(['import', fx('nvidia-smi-seed.csv'), '--tz', 'UTC'], env);
    const semi = join(tmp.dir, 'semicolon.csv');
    writeFileSync(semi, 'timestamp; index; power.draw [W]\n2026/11/30 08:45:57.673; 0; 250.1\n');
    const r1 = await runCli(['import', semi, '--format', 'nvidia-smi'], env);
    expect(r1.code).toBe(2);
    expect(r1.stderr).toContain(`${semi}:1: wrong delimiter`);
    const garbage = join(tmp.dir, 'garbage.bin');
    writeFileSync(garbage, Buffer.from([0, 1, 2, 255, 254, 10, 0, 0, 7]));
    const r2 = await runCli(['import', garbage], env);
    expect(r2.code).toBe(2);
    expect(r2.stderr).toMatch(/garbage\.bin: no importer recognises this file; name the format with --format/);
    const nowhere = join(tmp.dir, 'no-such-log.csv');
    const absent = await runCli(['import', fx('dcgmi-dmon.txt'), nowhere], env);
    expect(absent.code).toBe(2);
    expect(absent.stderr).toBe(`caplab import: ${nowhere}: no such file or directory\n`);
    const empty = join(tmp.dir, 'empty.csv');
    writeFileSync(empty, '');
    expect((await runCli(['import', empty], env)).stderr).toMatch(/empty\.csv: empty file/);
    expect((await runCli(['import', fx('nvidia-smi-seed.csv'), '--tz', 'Mars/Olympus'], env)).stderr).toMatch(/unknown time zone/);
    const db = new Database(env.CAPLAB_DB, { readonly: true });
    expect(db.prepare('SELECT COUNT(*) AS n FROM datasets').get()).toEqual({ n: 1 });
    expect(db.prepare('SELECT SUM(n) AS n FROM sample_blocks').get()).toEqual({ n: 6 });
    db.close();
  });

  it('kill -9 mid-import leaves no partial dataset and the earlier dataset intact', async () => {
    const env = freshDb();
    await runCli(['import', fx('nvidia-smi-seed.csv'), '--tz', 'UTC'], env);
    const big = join(tmp.dir, 'big-nvidia-smi.csv');
    await nvidiaSmiLog(big, 3_000_000);
    const { child, done } = startCli(['import', big, '--tz', 'UTC'], env);
    // Kill it once its one transaction has spilled a good part of the samples to the write-ahead log, well before its
    // commit (progress lines come every 2 s, and a parse thread can read the whole file before the store is done).
    const wal = `${env.CAPLAB_DB}-wal`;
    const walBytes = () => (existsSync(wal) ? statSync(wal).size : 0);
    const t0 = Date.now();
    while (Date.now() - t0 < 180_000 && walBytes() < 4 * 2 ** 20 && child.exitCode === null) await new Promise((r) => setTimeout(r, 5));
    expect(child.exitCode).toBeNull();
    expect(walBytes()).toBeGreaterThanOrEqual(4 * 2 ** 20);
    child.kill('SIGKILL');
    const res = await done;
    expect(res.signal).toBe('SIGKILL');
    const db = new Database(env.CAPLAB_DB);
    expect(db.prepare('SELECT id, samples FROM datasets').all()).toEqual([{ id: 1, samples: 6 }]);
    expect(db.prepare('SELECT SUM(n) AS n FROM sample_blocks').get()).toEqual({ n: 6 });
    expect(db.prepare("SELECT COUNT(*) AS n FROM devices WHERE host LIKE 'dataset:%'").get()).toEqual({ n: 2 });
    db.close();
  }, 240_000);
});
