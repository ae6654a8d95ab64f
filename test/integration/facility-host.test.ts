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
