import { afterAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { runCli } from '../helpers/cli';
import { tempDir } from '../helpers/tmp';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

describe('caplab devices', () => {
  it('lists simulated devices as JSON with the documented fields, labelled simulated', async () => {
    const r = await runCli(['devices', '--backend', 'sim', '--json'], { CAPLAB_SIM_STATE_DIR: join(tmp.dir, 'sim'), CAPLAB_SIM_DEVICES: 'h100-sxm,h200' });
    expect(r.code).toBe(0);
    const devices = JSON.parse(r.stdout) as Record<string, unknown>[];
    expect(devices).toHaveLength(2);
    expect(devices[0]).toMatchObject({ index: 0, simulated: true, limit_w: 700, min_limit_w: 200, max_limit_w: 700, default_limit_w: 700 });
    expect(String(devices[0]!.name)).toMatch(/H100.*simulated/);
    expect(String(devices[1]!.name)).toMatch(/H200.*simulated/);
    expect(r.stderr).toMatch(/backend sim: simulated GPUs requested/);
  });

  it('auto falls back to simulated GPUs here and says why', async () => {
    const r = await runCli(['devices'], { CAPLAB_SIM_STATE_DIR: join(tmp.dir, 'sim2'), PATH: '/usr/bin:/bin' });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/backend sim: .*nvml/i);
    expect(r.stdout).toMatch(/\(simulated\)/);
  });

  it('rejects an unknown backend with the allowed values', async () => {
    const r = await runCli(['devices', '--backend', 'cuda'], {});
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--backend must be one of auto, sim, nvml, nvidia-smi, amd-smi; got "cuda"');
  });
});
