// previewImport on the real import fixtures: what the import would read (format, candidates, columns, first rows,
// issues with what the page can do) and that nothing is written until importDataset takes the same options. Also
// through the browser host: an upload is previewed under the name the user chose and stays for the import.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Engine } from '../../src/main/lab/engine';
import { startServer, type RunningServer } from '../../src/main/host/server';
import { channelWords, ImportPreview } from '../../src/shared/import-preview';
import { CHANNELS } from '../../src/core/import';
import { tempDir } from '../helpers/tmp';

const fx = (name: string) => join(process.cwd(), 'test/fixtures/import', name);
const ISO_LOG = fx('gpu-noheader-iso.log');
const ISO_FIELDS = ['timestamp', 'index', 'power.draw', 'clocks.sm', 'temperature.gpu'];
const tmp = tempDir();
let engine: Engine;

beforeAll(async () => {
  engine = await Engine.open({ dbPath: join(tmp.dir, 'lab.db'), env: { ...process.env, CAPLAB_DATA_DIR: tmp.dir } });
});
afterAll(async () => {
  await engine.close();
  tmp.cleanup();
});

const preview = async (input: Omit<Parameters<Engine['previewImport']>[0], 'format' | 'rows'> & { format?: Parameters<Engine['previewImport']>[0]['format']; rows?: number }) =>
  ImportPreview.parse(await engine.previewImport({ format: 'auto', rows: 10, ...input }));

describe('previewImport', () => {
  it('reads an nvidia-smi log as the import would: detected format, column mapping, first rows with their values', async () => {
    const p = await preview({ paths: [fx('nvidia-smi-seed.csv')], tz: 'UTC', rows: 3 });
    expect(p.ready).toBe(true);
    const f = p.files[0]!;
    expect(f).toMatchObject({ detected: 'nvidia-smi', candidates: ['nvidia-smi'], format: 'nvidia-smi', clock: 'wall', rows_read: 6, rows_skipped: 0 });
    expect(f.columns.map((c) => [c.source, c.channel])).toEqual([
      ['power.draw', 'power_avg_w'],
      ['clocks.current.sm', 'sm_clock_mhz'],
      ['clocks.current.memory', 'mem_clock_mhz'],
      ['utilization.gpu', 'util_gpu'],
      ['temperature.gpu', 'temp_c'],
    ]);
    expect(f.devices.map((d) => d.name)).toEqual(['NVIDIA H100 80GB HBM3', 'NVIDIA H100 80GB HBM3']);
    expect(f.rows).toHaveLength(3);
    // Row 1 of the file: 2026/11/30 08:45:57.673, GPU 0, 612.45 W, 1980 MHz, 2619 MHz, 100 %, 61 C (read as UTC).
    expect(f.rows[0]).toEqual({
      t: Date.UTC(2026, 10, 30, 8, 45, 57, 673) / 1000,
      device: 'GPU-2f0e6a4c-1b2d-4c6e-8f10-0a1b2c3d4e5f',
      values: { power_avg_w: 612.45, sm_clock_mhz: 1980, mem_clock_mhz: 2619, temp_c: 61, util_gpu: 100 },
    });
    expect(f.head[0]).toMatch(/^timestamp, index, name/);
  });

  it('says the time zone applies to naive timestamps, and a zone moves them by its offset', async () => {
    const utc = (await preview({ paths: [fx('nvidia-smi-seed.csv')], tz: 'UTC' })).files[0]!;
    const berlin = (await preview({ paths: [fx('nvidia-smi-seed.csv')], tz: 'Europe/Berlin' })).files[0]!;
    expect(utc.zone_applies).toBe(true);
    expect(berlin.issues).toContainEqual({ level: 'note', message: expect.stringMatching(/no time zone: read as Europe\/Berlin/), action: 'set_tz' });
    // 30 November: CET, one hour east of UTC.
    expect(utc.rows[0]!.t - berlin.rows[0]!.t).toBeCloseTo(3600, 6);
    // Prometheus samples are epoch seconds: no zone to pick.
    const prom = (await preview({ paths: [fx('prometheus-dcgm.json')], tz: 'Europe/Berlin' })).files[0]!;
    expect(prom.format).toBe('prometheus');
    expect(prom.rows.length).toBeGreaterThan(0);
    expect(prom.zone_applies).toBe(false);
    expect(prom.issues.filter((i) => i.action === 'set_tz')).toEqual([]);
  });

  it('a headerless nvidia-smi log asks for the field list, and reads with it', async () => {
    const bare = await preview({ paths: [fx('nvidia-smi-noheader.csv')] });
    expect(bare.ready).toBe(false);
    expect(bare.files[0]).toMatchObject({ detected: 'nvidia-smi', rows: [] });
    expect(bare.files[0]!.issues).toEqual([{ level: 'error', message: expect.stringMatching(/^No nvidia-smi header line: give the field list/), action: 'set_fields' }]);
    const given = await preview({ paths: [fx('nvidia-smi-noheader.csv')], tz: 'UTC', fields: ['timestamp', 'index', 'power.draw', 'clocks.sm', 'temperature.gpu'] });
    expect(given.ready).toBe(true);
    expect(given.files[0]!.rows[1]).toEqual({ t: Date.UTC(2026, 10, 30, 8, 45, 57, 676) / 1000, device: 'gpu:1', values: { power_avg_w: 598.02, sm_clock_mhz: 1980, temp_c: 58 } });
  });

  it('a file no format recognises says what the page can do (pick a format, then the field list), never a CLI flag', async () => {
    const none = await preview({ paths: [ISO_LOG] });
    expect(none.ready).toBe(false);
    const f = none.files[0]!;
    expect(f).toMatchObject({ detected: null, candidates: [], format: null, rows: [] });
    expect(f.head[0]).toBe('2026-11-30T08:45:57.673, 0, 612.45, 1980, 61');
    expect(f.issues).toEqual([{ level: 'error', message: expect.stringMatching(/^No format recognises this file\. Pick its format/), action: 'pick_format' }]);
    expect(f.issues[0]!.message).not.toMatch(/--format/);
    const picked = await preview({ paths: [ISO_LOG], format: 'nvidia-smi' });
    expect(picked.files[0]!.issues.map((i) => i.action)).toEqual(['set_fields']);
    const read = await preview({ paths: [ISO_LOG], format: 'nvidia-smi', fields: ISO_FIELDS, tz: 'America/New_York' });
    expect(read.ready).toBe(true);
    expect(read.files[0]!.devices.map((d) => d.key)).toEqual(['gpu:0', 'gpu:1']);
    // 08:45:57.673 in New York (EST, UTC-5) is 13:45:57.673 UTC.
    expect(read.files[0]!.rows[0]!.t).toBe(Date.UTC(2026, 10, 30, 13, 45, 57, 673) / 1000);
  });

  it('a wrong format picked names the line and the format that matches', async () => {
    const p = await preview({ paths: [fx('nvidia-smi-seed.csv')], format: 'zeus' });
    expect(p.ready).toBe(false);
    const f = p.files[0]!;
    expect(f.format).toBe('zeus');
    expect(f.issues.some((i) => i.level === 'error' && /It may be nvidia-smi: pick that format\.$/.test(i.message) && i.action === 'pick_format')).toBe(true);
    expect(f.issues).toContainEqual({ level: 'note', message: 'Read as zeus; detection picks nvidia-smi for this file.', action: 'pick_format' });
  });

  it('a directory tree previews its power logs; a file no format reads is left out with a warning, not an error', async () => {
    const p = await preview({ paths: [fx('hpcai-tree')] });
    expect(p.ready).toBe(true);
    const power = p.files.filter((f) => f.format !== null);
    expect(power.length).toBeGreaterThan(0);
    expect(power.every((f) => f.rows.length > 0)).toBe(true);
    for (const f of p.files.filter((x) => x.format === null)) expect(f.issues.map((i) => i.level)).toEqual(['warning']);
  });

  it('refuses an unknown zone and a missing path by name', async () => {
    await expect(preview({ paths: [fx('nvidia-smi-seed.csv')], tz: 'Mars/Olympus' })).rejects.toThrow(/unknown time zone "Mars\/Olympus"/);
    await expect(preview({ paths: [fx('absent.csv')] })).rejects.toThrow(/cannot preview .*absent\.csv: no such file or directory/);
  });

  it('writes nothing; importDataset with the previewed options gives the previewed readings and records the zone', async () => {
    const options = { format: 'nvidia-smi' as const, fields: ISO_FIELDS, tz: 'America/New_York' };
    const p = await preview({ paths: [ISO_LOG], ...options });
    expect(await engine.listDatasets({})).toEqual([]);
    const r = await engine.importDataset({ import_id: 'steer-1', paths: [ISO_LOG], ...options });
    const ds = r.dataset!;
    expect(ds).toMatchObject({ format: 'nvidia-smi', timezone: 'America/New_York', samples: 6 });
    expect(ds.t_start).toBe(p.files[0]!.rows[0]!.t);
    expect(ds.report!.columns.map((c) => c.channel)).toEqual(p.files[0]!.columns.map((c) => c.channel));
  });

  it("the page's import of a file no format recognises asks for its format, not for --format", async () => {
    const e = await engine.importDataset({ import_id: 'steer-2', paths: [ISO_LOG], format: 'auto' }).then(() => null, (x: Error) => x);
    expect(e?.message).toMatch(/no importer recognises this file; choose its format \(one of nvidia-smi, /);
    expect(e?.message).not.toMatch(/--format/);
  });

  it('every import channel has words for the mapping', () => {
    expect(CHANNELS.filter((c) => !channelWords[c])).toEqual([]);
  });
});

describe('previewImport through the browser host', () => {
  let server: RunningServer;
  const uploads = join(tmp.dir, 'uploads');
  beforeAll(async () => {
    server = await startServer({ engine, port: 0, staticDir: null, uploadDir: uploads, maxUploadBytes: 1_000_000 });
  });
  afterAll(() => server.close());

  const api = async (path: string, init: RequestInit) => {
    const r = await fetch(`http://127.0.0.1:${server.port}/api/${path}`, { ...init, headers: { Authorization: `Bearer ${server.token}`, ...init.headers } });
    return (await r.json()) as Record<string, unknown>;
  };
  const call = (name: string, input: unknown) => api(name, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(input) });

  it('names an upload as the file chosen, keeps it for the import, and the import takes the same options', async () => {
    // Other readings than the log imported above (same content would be a duplicate, nothing written).
    const up = await api('upload?name=node7-gpu.log', { method: 'PUT', body: readFileSync(ISO_LOG, 'utf8').replace('612.45', '612.46') });
    const path = up.path as string;
    const options = { format: 'nvidia-smi', tz: 'Asia/Tokyo' };
    const asked = ImportPreview.parse(await call('previewImport', { paths: [path], ...options })).files[0]!;
    expect(asked.file).toBe('node7-gpu.log');
    expect(asked.issues.map((i) => i.action)).toEqual(['set_fields']);
    const p = ImportPreview.parse(await call('previewImport', { paths: [path], ...options, fields: ISO_FIELDS }));
    expect(p.ready).toBe(true);
    expect(existsSync(path)).toBe(true);
    const r = await call('importDataset', { import_id: 'steer-up', paths: [path], ...options, fields: ISO_FIELDS });
    expect(r.dataset).toMatchObject({ name: 'node7-gpu.log', timezone: 'Asia/Tokyo', t_start: p.files[0]!.rows[0]!.t, files: [{ path: 'node7-gpu.log' }] });
    expect(existsSync(path)).toBe(false);
  });
});
