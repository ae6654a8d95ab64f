// Paged reads over HTTP against a real host and a real SQLite file: a sweep's runs and a run's or a dataset
// segment's samples come back a page at a time, every row exactly once and in order; a bad cursor is invalid (400
// over HTTP, exit 2 in the CLI).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb } from '../../src/main/lab/store/db';
import { addSegment, createDataset } from '../../src/main/lab/store/datasets';
import { upsertDevice } from '../../src/main/lab/store/devices';
import { SampleWriter, streamFor, readSamples, streamsOf } from '../../src/main/lab/store/sample-blocks';
import { devicesOfRun } from '../../src/main/lab/store/devices';
import { samplesOfRun } from '../../src/main/lab/store/samples';
import type { DeviceInfo } from '../../src/shared/device';
import type { PagedSample } from '../../src/shared/api/sweeps';
import { createIpcTransport } from '../../src/main/host/ipc';
import { runCli } from '../helpers/cli';
import { openFixtureHost, type FixtureHost } from '../helpers/fixture-host';

let host: FixtureHost;
let segmentId = 0;
/** What was written into the dataset: device key -> [t, power_w] in write order. */
const written = new Map<string, [number, number][]>();
const WINDOW = { start: 1_700_000_010, end: 1_700_000_150 };

const gpu = (index: number): DeviceInfo => ({
  id: `nvml:${index}`, index, backend: 'nvml', kind: 'gpu', name: 'NVIDIA H200', vendor: 'NVIDIA', simulated: false, uuid: `GPU-${index}`, pci_bus_id: null, driver: null, vbios: null,
  limit_w: 700, enforced_limit_w: 700, min_limit_w: 200, max_limit_w: 700, default_limit_w: 700,
  sensors: { power_kinds: ['instant'], energy_counter: false, energy_counter_check: 'absent', update_period_ms: null },
});

/** Two GPUs, 3,000 samples each at 50 ms, three sharing each timestamp on GPU 0, and on GPU 1 a late batch that overlaps earlier blocks. */
function writeDataset(path: string): void {
  const db = openDb(path);
  const datasetId = createDataset(db, { name: 'paging', source: 'test', format: 'nvidia-smi' });
  const writer = new SampleWriter(db);
  for (const index of [0, 1]) {
    const row = upsertDevice(db, 'node-a', gpu(index));
    const stream = streamFor(db, { dataset_id: datasetId }, row);
    const rows: [number, number][] = [];
    const batch = (ts: number[]) => {
      const start = rows.length;
      ts.forEach((t, i) => rows.push([t, 100 + start + i]));
      writer.append(stream, { n: ts.length, t: Float64Array.from(ts), cols: { power_w: Float64Array.from(ts.map((_, i) => 100 + start + i)) }, power_kind: 'instant' });
    };
    const t0 = 1_700_000_000;
    if (index === 0) batch(Array.from({ length: 3000 }, (_, i) => t0 + Math.floor(i / 3) * 0.15));
    else {
      batch(Array.from({ length: 2500 }, (_, i) => t0 + i * 0.05));
      writer.close();
      // Arrived late: between samples already stored, so its block overlaps theirs.
      batch(Array.from({ length: 500 }, (_, i) => t0 + 20.025 + i * 0.05));
    }
    written.set(`node-a/nvml:${index}/GPU-${index}`, rows);
  }
  writer.close();
  segmentId = addSegment(db, { dataset_id: datasetId, ...WINDOW, workload: 'w', cap_w: 500 });
  db.close();
}

const us = (t: number) => Math.round(t * 1e6);

async function allPages<T>(method: string, body: Record<string, unknown>, key: string): Promise<{ rows: T[]; pages: number }> {
  const rows: T[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const r = await host.post<Record<string, unknown>>(method, { ...body, ...(cursor ? { cursor } : {}) });
    expect(r.status).toBe(200);
    const page = r.json[key] as T[];
    expect(page.length).toBeLessThanOrEqual(body.limit as number);
    rows.push(...page);
    cursor = (r.json.next as string | null) ?? undefined;
    pages++;
    expect(pages).toBeLessThan(10_000);
  } while (cursor);
  return { rows, pages };
}

beforeAll(async () => {
  host = await openFixtureHost({ migrateWithCli: false, prepare: writeDataset });
}, 120_000);
afterAll(() => host?.close());

describe('paged reads', () => {
  it('listRuns pages through a sweep: every run once, in run order, the same runs getSweep lists', async () => {
    const whole = (await host.post<{ runs: { id: number }[] }>('getSweep', { sweep_id: 1 })).json.runs.map((r) => r.id);
    expect(whole.length).toBe(6);
    for (const limit of [1, 4, 6, 1000]) {
      const { rows, pages } = await allPages<{ id: number; efficiency: number | null; node: string | null }>('listRuns', { sweep_id: 1, limit }, 'runs');
      expect(rows.map((r) => r.id)).toEqual(whole);
      expect(pages).toBe(Math.max(1, Math.ceil(whole.length / limit)));
    }
    // The run entries are getSweep's, figures included.
    const first = (await host.post<{ runs: unknown[] }>('listRuns', { sweep_id: 1, limit: 2 })).json.runs[0];
    expect(first).toEqual((await host.post<{ runs: unknown[] }>('getSweep', { sweep_id: 1 })).json.runs[0]);
  });

  it('listSamples pages through a dataset segment: every sample of its window once, device after device, t ascending', async () => {
    const expected = [...written.entries()].flatMap(([key, rows]) =>
      rows
        .filter(([t]) => t >= WINDOW.start && t <= WINDOW.end)
        .sort((a, b) => a[0] - b[0] || a[1] - b[1])
        .map(([t, p]) => `${key} ${us(t)} ${p}`),
    );
    expect(expected.length).toBeGreaterThan(4000);
    for (const limit of [7, 1000, 10_000]) {
      const { rows, pages } = await allPages<PagedSample>('listSamples', { source: { kind: 'segment', segment_id: segmentId }, limit }, 'samples');
      expect(rows.map((s) => `${s.device_key} ${us(s.t)} ${s.power_w}`)).toEqual(expected);
      expect(pages).toBeGreaterThanOrEqual(Math.ceil(expected.length / limit));
      expect(pages).toBeLessThanOrEqual(Math.ceil(expected.length / limit) + 1);
    }
  });

  it('listSamples pages through a run: the same samples the store reads for each of its devices', async () => {
    const db = openDb(host.db, { readonly: true });
    try {
      const expected = devicesOfRun(db, 2).flatMap((d) => samplesOfRun(db, 2, d.id).map((s) => `${d.device_key} ${us(s.t)} ${s.power_w} ${s.energy_mj}`));
      expect(expected.length).toBeGreaterThan(100);
      const { rows } = await allPages<PagedSample>('listSamples', { source: { kind: 'run', run_id: 2 }, limit: 37 }, 'samples');
      expect(rows.map((s) => `${s.device_key} ${us(s.t)} ${s.power_w} ${s.energy_mj}`)).toEqual(expected);
      // A dataset's stream read whole agrees with its pages too (same rows, same order).
      const stream = streamsOf(db, { dataset_id: 1 })[1]!;
      const whole = readSamples(db, stream.stream_id, WINDOW.start, WINDOW.end).map((s) => us(s.t));
      const paged = (await allPages<PagedSample>('listSamples', { source: { kind: 'segment', segment_id: segmentId }, limit: 333 }, 'samples')).rows.filter((s) => s.device_key.includes('nvml:1')).map((s) => us(s.t));
      expect(paged).toEqual(whole);
    } finally {
      db.close();
    }
  });

  it('a bad cursor or page size is invalid: 400 over HTTP, exit 2 in the CLI; an unknown sweep is 404', async () => {
    const bad = await host.post<{ code: string; error: string }>('listSamples', { source: { kind: 'run', run_id: 2 }, cursor: 'not-a-cursor', limit: 10 });
    expect(bad).toMatchObject({ status: 400, json: { code: 'invalid' } });
    expect(bad.json.error).toMatch(/cursor/);
    // A cursor of one sweep given to another.
    const other = (await host.post<{ next: string }>('listRuns', { sweep_id: 1, limit: 1 })).json.next;
    expect(await host.post('listRuns', { sweep_id: 2, cursor: other, limit: 1 })).toMatchObject({ status: 400, json: { code: 'invalid' } });
    expect(await host.post('listSamples', { source: { kind: 'run', run_id: 2 }, limit: 10_001 })).toMatchObject({ status: 400, json: { code: 'invalid' } });
    expect(await host.post('listRuns', { sweep_id: 42 })).toMatchObject({ status: 404, json: { code: 'not_found' } });
    // The same over IPC (the desktop app's transport): a page, and the bad cursor's code.
    const ipc = createIpcTransport(host.engine, () => true);
    expect(await ipc.call('file:///x', true, 'listRuns', { sweep_id: 1, limit: 4 })).toMatchObject({ ok: true, value: { runs: [{}, {}, {}, {}], next: expect.any(String) } });
    expect(await ipc.call('file:///x', true, 'listSamples', { source: { kind: 'run', run_id: 2 }, cursor: 'not-a-cursor' })).toMatchObject({ ok: false, status: 400, error: { code: 'invalid' } });

    const cli = await runCli(['samples', '--run', '2', '--cursor', 'not-a-cursor'], host.env);
    expect(cli.code).toBe(2);
    expect(cli.stderr).toMatch(/cursor/);
    const tooBig = await runCli(['runs', '--sweep', '1', '--limit', '5000'], host.env);
    expect(tooBig.code).toBe(2);
  }, 60_000);

  it('the CLI pages too: runs --limit gives {sweep_id, runs, next}; samples prints every sample as a JSON line', async () => {
    const page = await runCli(['runs', '--sweep', '1', '--limit', '4', '--json'], host.env);
    expect(page.code).toBe(0);
    const p1 = JSON.parse(page.stdout) as { sweep_id: number; runs: { run_id: number }[]; next: string };
    expect(p1.runs.length).toBe(4);
    const page2 = JSON.parse((await runCli(['runs', '--sweep', '1', '--limit', '4', '--cursor', p1.next, '--json'], host.env)).stdout) as { runs: { run_id: number }[]; next: string | null };
    expect(page2.next).toBeNull();
    expect([...p1.runs, ...page2.runs].map((r) => r.run_id)).toEqual((await host.post<{ runs: { id: number }[] }>('getSweep', { sweep_id: 1 })).json.runs.map((r) => r.id));

    const lines = await runCli(['samples', '--segment', String(segmentId)], host.env);
    expect(lines.code).toBe(0);
    const all = lines.stdout.trim().split('\n').map((l) => JSON.parse(l) as PagedSample);
    const viaHttp = (await allPages<PagedSample>('listSamples', { source: { kind: 'segment', segment_id: segmentId }, limit: 10_000 }, 'samples')).rows;
    expect(all).toEqual(viaHttp);
  }, 120_000);
});
