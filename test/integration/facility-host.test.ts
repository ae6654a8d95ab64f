// The facility planner through the engine contract on a real browser host: a run returns its levels, and bad
// facility input (a field out of range, a dataset segment that is not there) is a 400 'invalid' naming the field.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { openFixtureHost, type FixtureHost } from '../helpers/fixture-host';
import { smallTraining } from '../unit/facility/helpers';

let host: FixtureHost;
beforeAll(async () => {
  host = await openFixtureHost({ migrateWithCli: false });
});
afterAll(() => host?.close());

const withProfile = (profile: Record<string, unknown>) => ({ ...smallTraining, jobs: [{ ...smallTraining.jobs![0], profile }] });

describe('facility through the host', () => {
  it('runFacility returns the levels of a config', async () => {
    const r = await host.post<{ levels: { target_utilization: number; utilization: number; mean_w: number }[] }>('runFacility', { yaml: stringify(smallTraining), horizon_days: 3 });
    expect(r.status).toBe(200);
    expect(r.json.levels).toHaveLength(1);
    expect(r.json.levels[0]!.utilization).toBeGreaterThan(0.4);
    expect(r.json.levels[0]!.mean_w).toBeGreaterThan(200 * 420);
  }, 60_000);

  it('facilitySeries returns a zoomed window of the run at full resolution, the same power the level reports', async () => {
    type Level = { mean_w: number; series: { t_h: number[]; it_w: number[] } };
    const run = await host.post<{ series_key: string; scenarios: { name: string; levels: Level[] }[] }>('runFacility', { yaml: stringify(smallTraining), horizon_days: 3, replicas: 1 });
    expect(run.status).toBe(200);
    const key = run.json.series_key;
    const sc = run.json.scenarios[0]!;
    const level = sc.levels[0]!;
    type Slice = { t_h: number[]; it_w: number[]; total_w: number[]; grid_w: number[] | null; step_s: number; bucket_s: number; from_h: number; to_h: number };
    const ask = (from_h: number, to_h: number, extra: Record<string, unknown> = {}) => host.post<Slice>('facilitySeries', { series_key: key, scenario: sc.name, target_index: 0, from_h, to_h, ...extra });
    // The whole horizon step by step (3 days at 1 min): its mean is the level's mean IT power (32-bit floats kept).
    const all = (await ask(0, 72, { max_points: 200_000 })).json;
    expect(all).toMatchObject({ step_s: 60, bucket_s: 60, from_h: 0, to_h: 72, grid_w: null });
    expect(all.it_w).toHaveLength(3 * 1440);
    const mean = all.it_w.reduce((a, b) => a + b, 0) / all.it_w.length;
    expect(Math.abs(mean - level.mean_w) / level.mean_w).toBeLessThan(1e-6);
    // The page's whole-horizon series is bucket means of these steps (3 steps a bucket here).
    const size = Math.round((level.series.t_h[1]! * 3600) / 60);
    level.series.it_w.forEach((w, i) => {
      const b = all.it_w.slice(i * size, (i + 1) * size);
      expect(Math.abs(b.reduce((x, y) => x + y, 0) / b.length - w)).toBeLessThan(1e-6 * level.mean_w);
    });
    // A day: only that day comes back, 1,440 one-minute steps, the same values as the whole.
    const day = (await ask(24, 48)).json;
    expect(day.it_w).toHaveLength(1440);
    expect(day.t_h[0]).toBe(24);
    expect(day.t_h[1]! - day.t_h[0]!).toBeCloseTo(1 / 60, 12);
    expect(day.it_w).toEqual(all.it_w.slice(1440, 2880));
    // More steps than asked for: bucket means.
    const coarse = (await ask(0, 72, { max_points: 100 })).json;
    expect(coarse.bucket_s).toBe(44 * 60);
    expect(coarse.it_w).toHaveLength(Math.ceil(4320 / 44));
    const gone = await host.post<{ code: string; error: string }>('facilitySeries', { series_key: 'not-a-key', scenario: sc.name, target_index: 0, from_h: 0, to_h: 24 });
    expect(gone).toMatchObject({ status: 404, json: { code: 'not_found' } });
    expect(gone.json.error).toMatch(/^facility series not-a-key: not kept/);
    const noLevel = await host.post<{ code: string }>('facilitySeries', { series_key: key, scenario: sc.name, target_index: 3, from_h: 0, to_h: 24 });
    expect(noLevel).toMatchObject({ status: 404, json: { code: 'not_found' } });
  }, 60_000);

  it('cancelFacility stops a run in progress: it answers 409 "facility run cancelled", and the next run completes', async () => {
    const long = host.post<{ error?: { message: string } }>('runFacility', { yaml: stringify(smallTraining), horizon_days: 200, replicas: 16 });
    // Cancel once the run has started (a cancel before it would find nothing to stop).
    let cancelled = 0;
    for (let i = 0; i < 100 && cancelled === 0; i++) {
      await new Promise((r) => setTimeout(r, 50));
      cancelled = (await host.post<{ cancelled: number }>('cancelFacility', {})).json.cancelled;
    }
    expect(cancelled).toBe(1);
    const r = await long;
    expect(r.status).toBe(409);
    expect(JSON.stringify(r.json)).toContain('facility run cancelled');
    expect((await host.post<{ cancelled: number }>('cancelFacility', {})).json.cancelled).toBe(0);
    const again = await host.post<{ levels: unknown[] }>('runFacility', { yaml: stringify(smallTraining), horizon_days: 2 });
    expect(again.status).toBe(200);
  }, 60_000);

  it('facilityReport makes the PDF report (headless Chromium behind the host) of the same run runFacility gives', async () => {
    const input = { yaml: stringify(smallTraining), horizon_days: 3, replicas: 2 };
    const run = await host.post<{ levels: { mean_w: number }[] }>('runFacility', input);
    const r = await host.post<{ filename: string; mime: string; bytes: number; data_base64: string }>('facilityReport', { ...input, format: 'pdf', paper: 'letter' });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ mime: 'application/pdf', filename: expect.stringMatching(/^caplab-facility-.*\.pdf$/) });
    const dir = mkdtempSync(join(tmpdir(), 'caplab-facility-report-'));
    try {
      const pdf = join(dir, r.json.filename);
      writeFileSync(pdf, Buffer.from(r.json.data_base64, 'base64'));
      expect(statSync(pdf).size).toBe(r.json.bytes);
      const text = execFileSync('pdftotext', ['-layout', pdf, '-'], { encoding: 'utf8' });
      expect(text).toContain('CapLab facility report');
      // Same seed, same numbers: the run's mean (MW, 4 significant digits) is in the report.
      expect(text).toContain(String(Number((run.json.levels[0]!.mean_w / 1e6).toPrecision(4))));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const bad = await host.post<{ code: string; error: string }>('facilityReport', { ...input, format: 'docx' });
    expect(bad).toMatchObject({ status: 400, json: { code: 'invalid' } });
    expect(bad.json.error).toMatch(/facilityReport: input\.format/);
  }, 120_000);

  it('bad input is 400 invalid naming the field: a target over 100 %, a missing dataset segment', async () => {
    const over = await host.post<{ code: string; error: string }>('runFacility', { yaml: stringify({ ...smallTraining, targets: [1.5] }) });
    expect(over).toMatchObject({ status: 400, json: { code: 'invalid' } });
    expect(over.json.error).toBe('facility config: targets[0]: utilisation is a fraction of nodes busy: at most 1 (100 %) (got 1.5)');
    const segment = await host.post<{ code: string; error: string }>('runFacility', { yaml: stringify(withProfile({ segment: { db: host.db, segment_id: 99 } })) });
    expect(segment).toMatchObject({ status: 400, json: { code: 'invalid' } });
    expect(segment.json.error).toMatch(/^facility config: jobs\[0\]\.profile\.segment\.segment_id: no dataset segment 99/);
  }, 60_000);
});
