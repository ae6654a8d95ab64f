// `caplab serve --metrics`: the browser host's opt-in Prometheus endpoint, token-guarded, with the live run's phase.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { startCli } from '../helpers/cli';
import { tempDir } from '../helpers/tmp';

const TOKEN = 'metrics-test-token-0123456789abcdef';
let tmp: ReturnType<typeof tempDir>;
let server: ReturnType<typeof startCli>;
let origin: string;

beforeAll(async () => {
  tmp = tempDir('caplab-serve-metrics-');
  server = startCli(['serve', '--api-only', '--metrics', '--interval', '200', '--backend', 'sim', '--port', '0'], {
    CAPLAB_TOKEN: TOKEN,
    CAPLAB_DATA_DIR: tmp.dir,
    CAPLAB_DB: join(tmp.dir, 'lab.db'),
    CAPLAB_SIM_STATE_DIR: join(tmp.dir, 'sim'),
  });
  let out = '';
  server.child.stdout!.on('data', (d) => (out += d));
  const until = Date.now() + 60_000;
  while (!/serving at (http:\/\/[^/\s?]+)/.test(out)) {
    if (server.child.exitCode !== null || Date.now() > until) throw new Error(`serve did not start: ${(await server.done).stderr}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  origin = /serving at (http:\/\/[^/\s?]+)/.exec(out)![1]!;
}, 90_000);

afterAll(async () => {
  server?.child.kill('SIGTERM');
  await server?.done;
  tmp?.cleanup();
}, 60_000);

const auth = { Authorization: `Bearer ${TOKEN}` };
const metrics = async () => (await fetch(`${origin}/metrics`, { headers: auth })).text();

describe('caplab serve --metrics', () => {
  it('refuses a scrape without the token and serves DCGM metrics with it', async () => {
    expect((await fetch(`${origin}/metrics`)).status).toBe(401);
    const text = await metrics();
    expect(text).toMatch(/^DCGM_FI_DEV_POWER_USAGE\{gpu="0",UUID="SIM-h100-sxm-0",.*\} \d+(\.\d+)?$/m);
    expect(text).toContain('caplab_run_phase{Hostname=');
    expect(text).toMatch(/caplab_run_phase\{[^}]*phase="idle"\} 1/);
  });

  it('shows the running sweep\'s workload, cap and phase while it runs', { timeout: 120_000 }, async () => {
    const plan = { name: 'metrics', backend: 'sim', workloads: [{ id: 'vit_l_16' }], caps: [350], warmup: { seconds: 20 }, window: { seconds: 200 }, cooldown_s: 0, sim: { speedup: 5 } };
    const res = await fetch(`${origin}/api/startSweep`, { method: 'POST', headers: { ...auth, 'Content-Type': 'application/json' }, body: JSON.stringify({ plan }) });
    expect(res.status).toBe(200);
    const { sweep_id } = (await res.json()) as { sweep_id: number };
    let text = '';
    const until = Date.now() + 90_000;
    while (!/caplab_run_phase\{[^}]*phase="measure"\} 1/.test(text) && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 300));
      text = await metrics();
    }
    expect(text).toMatch(new RegExp(`caplab_sweep_run_info\\{[^}]*sweep_id="${sweep_id}"[^}]*workload="vit_l_16",cap_w="350"[^}]*\\} 1`));
    expect(text).toMatch(/caplab_run_phase\{[^}]*phase="measure"\} 1/);
    expect(text).toMatch(/caplab_power_limit_watts\{gpu="0"[^}]*\} 350/);
    await fetch(`${origin}/api/cancelSweep`, { method: 'POST', headers: { ...auth, 'Content-Type': 'application/json' }, body: JSON.stringify({ sweep_id }) });
  });
});
