// Typed error codes end to end, on a real engine and database: the same failure is 404 over HTTP, the same code
// over IPC, exit 2 in the CLI; busy devices are conflicts; bad input is invalid; nothing depends on message text.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIpcTransport } from '../../src/main/host/ipc';
import { labErrorCode } from '../../src/main/lab/errors/error-code';
import { BackendError } from '../../src/main/lab/gpu/backend';
import { LeaseHeldError } from '../../src/main/lab/lease/device-lease';
import { exitCodeOf, httpStatusOf, LabError } from '../../src/shared/errors';
import { runCli } from '../helpers/cli';
import { openFixtureHost, type FixtureHost } from '../helpers/fixture-host';

let host: FixtureHost;
let env: NodeJS.ProcessEnv;
let engine: FixtureHost['engine'];
const post = (method: string, body: unknown) => host.post<{ error: string; code: string }>(method, body);

beforeAll(async () => {
  host = await openFixtureHost({ migrateWithCli: false });
  ({ env, engine } = host);
});
afterAll(() => host?.close());

describe('error codes', () => {
  it('getSweep(42): 404 not_found over HTTP, not_found over IPC, exit 2 in the CLI', async () => {
    const http = await post('getSweep', { sweep_id: 42 });
    expect(http).toEqual({ status: 404, json: { code: 'not_found', error: 'no sweep 42' } });
    const ipc = await createIpcTransport(engine, () => true).call('file:///x', true, 'getSweep', { sweep_id: 42 });
    expect(ipc).toEqual({ ok: false, status: 404, error: { code: 'not_found', error: 'no sweep 42' } });
    const cli = await runCli(['analyze', '42'], env);
    expect(cli.code).toBe(2);
    expect(cli.stderr).toMatch(/no sweep 42/);
    expect(cli.stderr).not.toMatch(/\n\s+at /);
  });

  it('bad input is invalid (400) naming the field; an unknown run or segment is not_found', async () => {
    expect(await post('getSweep', { sweep_id: 'x' })).toMatchObject({ status: 400, json: { code: 'invalid' } });
    expect((await post('getSweep', { sweep_id: 'x' })).json.error).toMatch(/sweep_id/);
    expect(await post('getRunTraces', { run_id: 999 })).toMatchObject({ status: 404, json: { code: 'not_found' } });
    expect(await post('analyzeSources', { sources: [{ kind: 'segment', segment_id: 5 }] })).toMatchObject({ status: 404, json: { code: 'not_found' } });
    expect(await post('analyzeSources', { sources: [{ kind: 'segment' }] })).toMatchObject({ status: 400, json: { code: 'invalid' } });
    expect(await post('analyzeDataset', { dataset_id: 77 })).toMatchObject({ status: 404, json: { code: 'not_found', error: 'no dataset 77 in this database' } });
    expect(await post('analyzeDataset', { dataset_id: 1, overhead_w: -1 })).toMatchObject({ status: 400, json: { code: 'invalid' } });
  });

  it('maps each code once, by type', () => {
    expect(labErrorCode(new BackendError('no GPU', 'nvml', 'no-device'))).toBe('unavailable');
    expect(labErrorCode(new BackendError('too high', 'nvml', 'out-of-range'))).toBe('invalid');
    expect(labErrorCode(new LeaseHeldError('k', null))).toBe('conflict');
    // A plain Error saying "not found" is still internal: nothing is classified by its text.
    expect(labErrorCode(new Error('sweep 3 not found'))).toBe('internal');
    expect(labErrorCode(new LabError('conflict', 'busy'))).toBe('conflict');
    expect([httpStatusOf.invalid, httpStatusOf.not_found, httpStatusOf.conflict, httpStatusOf.unavailable, httpStatusOf.internal]).toEqual([400, 404, 409, 503, 500]);
    expect([exitCodeOf.invalid, exitCodeOf.not_found, exitCodeOf.conflict, exitCodeOf.unavailable, exitCodeOf.internal]).toEqual([2, 2, 3, 4, 1]);
  });
});
