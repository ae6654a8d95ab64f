// The exporter against a real Prometheus (Debian's package), started here with a scrape config pointing at it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startCli } from '../helpers/cli';
import { tempDir } from '../helpers/tmp';
import { freePort, missing, startPrometheus, type Prometheus } from '../helpers/daemons';
import { SimBackend } from '../../src/main/lab/gpu/sim';

const absent = missing(['prometheus']);

describe.skipIf(absent.length > 0)(`caplab exporter scraped by a real Prometheus${absent.length ? ' (skipped: prometheus not installed; .ci/run installs it)' : ''}`, () => {
  let tmp: ReturnType<typeof tempDir>;
  let prom: Prometheus | undefined;
  let exporter: ReturnType<typeof startCli> | undefined;
  let sim: SimBackend;

  beforeAll(async () => {
    tmp = tempDir('caplab-prom-');
    const simDir = join(tmp.dir, 'sim');
    sim = new SimBackend({ stateDir: simDir, presets: ['h100-sxm', 'a100-sxm'] });
    await sim.setPowerLimit(0, 450);
    const port = await freePort();
    exporter = startCli(['exporter', '--backend', 'sim', '--port', String(port), '--interval', '200'], { CAPLAB_DATA_DIR: tmp.dir, CAPLAB_SIM_STATE_DIR: simDir });
    let out = '';
    exporter.child.stdout!.on('data', (d) => (out += d));
    const until = Date.now() + 60_000;
    while (!out.includes('/metrics')) {
      if (exporter.child.exitCode !== null || Date.now() > until) throw new Error(`exporter did not start: ${(await exporter.done).stderr}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    prom = await startPrometheus(join(tmp.dir, 'prom'), [`127.0.0.1:${port}`]);
  }, 120_000);

  afterAll(async () => {
    exporter?.child.kill('SIGTERM');
    await exporter?.done;
    await prom?.stop();
    tmp?.cleanup();
  }, 60_000);

  it('PromQL DCGM_FI_DEV_POWER_USAGE returns the simulated devices\' power, with DCGM labels', { timeout: 120_000 }, async () => {
    type Result = Awaited<ReturnType<Prometheus['query']>>;
    let result: Result = [];
    const until = Date.now() + 60_000;
    while (result.length < 2 && Date.now() < until) {
      result = await prom!.query('DCGM_FI_DEV_POWER_USAGE');
      if (result.length < 2) await new Promise((r) => setTimeout(r, 500));
    }
    expect(result.map((r) => r.metric.gpu).sort()).toEqual(['0', '1']);
    const devices = await sim.listDevices();
    const now = await sim.sample([0, 1]);
    for (const r of result) {
      const d = devices[Number(r.metric.gpu)]!;
      expect(r.metric).toMatchObject({ UUID: d.uuid, modelName: d.name, device: `nvidia${d.index}`, job: 'caplab' });
      expect(r.metric.Hostname).toBeTruthy();
      const value = Number(r.value[1]);
      const reading = now.find((s) => s.device_id === d.id)!.power_w!;
      // Idle readings move by sensor noise between the scrape and this read: 5 % (at least 5 W) covers it.
      expect(Math.abs(value - reading)).toBeLessThanOrEqual(Math.max(5, reading * 0.05));
    }
    const limits = await prom!.query('caplab_power_limit_watts');
    expect(Object.fromEntries(limits.map((r) => [r.metric.gpu, Number(r.value[1])]))).toEqual({ '0': 450, '1': devices[1]!.limit_w });
    const phase = await prom!.query('caplab_run_phase == 1');
    expect(phase.map((r) => r.metric.phase)).toEqual(['idle']);
  });

  it('every query of the Grafana dashboard is valid PromQL there, and the GPU panels get data', { timeout: 60_000 }, async () => {
    const dash = JSON.parse(readFileSync('resources/grafana/caplab-gpus.json', 'utf8')) as { panels: { title: string; targets: { expr: string }[] }[] };
    // rate() needs two scrapes of a series.
    const until = Date.now() + 30_000;
    while ((await prom!.query('count_over_time(DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION[1m]) >= 3')).length < 2 && Date.now() < until) await new Promise((r) => setTimeout(r, 500));
    for (const panel of dash.panels) {
      for (const t of panel.targets) {
        const expr = t.expr.replaceAll('$Hostname', '.*').replaceAll('$gpu', '.*');
        const result = await prom!.query(expr);
        // The run-info table is empty while no sweep runs; every other panel shows the simulated GPUs.
        if (!expr.includes('caplab_sweep_run_info')) expect(result.length, `${panel.title}: ${expr}`).toBeGreaterThan(0);
      }
    }
  });
});
