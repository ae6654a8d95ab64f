// Adding a backend is one module plus one line in each list: done here on a copy of the source tree, then the
// real CLI (run from that copy) offers it in --backend and its help, and lists its device.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/tmp';
import { copySourceTree } from '../helpers/source-copy';

const tmp = tempDir('caplab-plugin-');
afterAll(() => tmp.cleanup());

const MODULE = `
import type { DeviceInfo, Sample } from '../../../shared/device';
import type { BackendModule, GpuBackend } from './backend';

const device = {
  id: 'lab-meter:0', index: 0, backend: 'lab-meter', kind: 'gpu', name: 'Bench meter GPU', vendor: 'test', simulated: false,
  uuid: 'METER-0', pci_bus_id: null, driver: null, vbios: null, limit_w: 300, enforced_limit_w: 300, min_limit_w: 100,
  max_limit_w: 300, default_limit_w: 300,
  sensors: { power_kinds: ['instant'], energy_counter: false, energy_counter_check: 'absent', update_period_ms: null },
} as DeviceInfo;

class MeterBackend implements GpuBackend {
  readonly name = 'lab-meter' as const;
  readonly simulated = false;
  async listDevices(): Promise<DeviceInfo[]> { return [device]; }
  async sample(): Promise<Sample[]> { return []; }
  async readEnergyMj(): Promise<number | null> { return null; }
  async getPowerLimit(): Promise<number> { return 300; }
  async setPowerLimit(): Promise<void> {}
  now(): number { return Date.now() / 1000; }
  async close(): Promise<void> {}
}

export const labMeterBackend: BackendModule = {
  id: 'lab-meter', auto: false, vendor: 'none',
  open: async () => ({ backend: new MeterBackend() }),
  chosen: (_b, requested) => (requested ? 'lab meter requested' : 'using the lab meter'),
};
`;

function edit(path: string, find: string, add: string): void {
  const text = readFileSync(path, 'utf8');
  if (!text.includes(find)) throw new Error(`${path}: "${find}" not found`);
  writeFileSync(path, text.replace(find, `${find}${add}`));
}

const cliEnv = () => ({ ...process.env, CAPLAB_DATA_DIR: join(tmp.dir, 'data'), CAPLAB_SIM_STATE_DIR: join(tmp.dir, 'sim') });

function cli(args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [join(tmp.dir, 'bin', 'caplab.mjs'), ...args], {
    env: cliEnv(),
    encoding: 'utf8',
    timeout: 120_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

beforeAll(() => {
  copySourceTree(tmp.dir);
  mkdirSync(join(tmp.dir, 'data'));
  // The three edits of the architecture table: the module, its line in shared/backends.ts, its line in registry.ts.
  writeFileSync(join(tmp.dir, 'src/main/lab/gpu/lab-meter.ts'), MODULE);
  edit(join(tmp.dir, 'src/shared/backends.ts'), "export const backendList = [\n", "  { id: 'lab-meter', label: 'bench power meter', choosable: true },\n");
  edit(join(tmp.dir, 'src/main/lab/gpu/registry.ts'), "export const backendRegistry: readonly BackendModule[] = [\n", '  labMeterBackend,\n');
  edit(join(tmp.dir, 'src/main/lab/gpu/registry.ts'), "import type { BackendModule } from './backend';\n", "import { labMeterBackend } from './lab-meter';\n");
});

describe('a new backend module', () => {
  it('is a --backend choice with its help line, and lists its device', () => {
    const help = cli(['devices', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/Which GPUs to drive: auto, lab-meter, sim, nvml, nvidia-smi or amd-smi/);
    expect(help.stdout).toMatch(/lab-meter: bench power meter/);

    const list = cli(['devices', '--backend', 'lab-meter', '--json']);
    expect(list.stderr).toMatch(/lab meter requested/);
    expect(list.code).toBe(0);
    const devices = JSON.parse(list.stdout) as { id: string; backend: string; name: string }[];
    expect(devices.filter((d) => d.backend === 'lab-meter')).toEqual([expect.objectContaining({ id: 'lab-meter:0', name: 'Bench meter GPU' })]);

    const wrong = cli(['devices', '--backend', 'cuda']);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('--backend must be one of auto, lab-meter, sim, nvml, nvidia-smi, amd-smi; got "cuda"');
  }, 240_000);

  it('is a backend the browser host accepts and lists the device of', async () => {
    const serve = spawn(process.execPath, [join(tmp.dir, 'bin', 'caplab.mjs'), 'serve', '--api-only', '--port', '0'], { env: cliEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      let out = '';
      serve.stdout.on('data', (d) => (out += d));
      const url = await new Promise<URL>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`serve printed no URL: ${out}`)), 120_000);
        serve.stdout.on('data', () => {
          const m = /serving at (http:\/\/\S+)/.exec(out);
          if (m) {
            clearTimeout(timer);
            resolve(new URL(m[1]!));
          }
        });
      });
      const token = new URLSearchParams(url.hash.slice(1)).get('token')!;
      const res = await fetch(new URL('/api/listDevices', url), { method: 'POST', headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ backend: 'lab-meter' }) });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { backend: string; reason: string; devices: { id: string }[] };
      expect(body).toMatchObject({ backend: 'lab-meter', devices: [{ id: 'lab-meter:0' }] });
      expect(body.reason).toMatch(/^lab meter requested/);
    } finally {
      serve.kill('SIGINT');
    }
  }, 240_000);
});
