// The Cluster page against a real Slurm: a three-node cluster on this host (test/helpers/daemons.ts), a simulated
// plan submitted with `caplab cluster submit`, and a browser host of its own that can reach Slurm (SLURM_CONF).
import { test, expect } from '@playwright/test';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { slurmUnavailable, startSlurm, type SlurmCluster } from '../helpers/daemons';
import { runCli } from '../helpers/cli';

const unavailable = slurmUnavailable();
test.skip(unavailable !== null, `no local Slurm: ${unavailable}`);

let dir: string;
let slurm: SlurmCluster | undefined;
let server: ChildProcess | undefined;
let url: string;
let jobId: string;

test.beforeAll(async () => {
  test.setTimeout(300_000);
  dir = mkdtempSync(join(tmpdir(), 'caplab-e2e-cluster-'));
  mkdirSync(join(dir, 'slurm'));
  slurm = await startSlurm(join(dir, 'slurm'), ['node1', 'node2', 'node3']);
  const env = {
    ...slurm.env,
    CAPLAB_DATA_DIR: join(dir, 'lab'),
    CAPLAB_DB: join(dir, 'lab', 'lab.db'),
    CAPLAB_SIM_STATE_DIR: join(dir, 'lab', 'sim'),
    CAPLAB_NODE_DIR: join(dir, 'nodes'),
    CAPLAB_LEASE_DIR: join(dir, 'leases'),
    CAPLAB_LEASE_NS: `e2e-cluster-${process.pid}`,
  };
  const plan = {
    name: 'ViT-L/16 across three nodes',
    backend: 'sim',
    workloads: [{ id: 'vit_l_16', params: { batch_size: 128 } }],
    caps: [300, 400, 500, 600],
    warmup: { seconds: 5 },
    window: { seconds: 15 },
    cooldown_s: 0,
    sample_interval_ms: 200,
    sim: { speedup: 50, devices: ['h100-sxm', 'h100-sxm'] },
    devices: [0, 1],
    cluster: { shard_by: 'node' },
  };
  writeFileSync(join(dir, 'plan.json'), JSON.stringify(plan));
  const sub = await runCli(['cluster', 'submit', join(dir, 'plan.json'), '--nodes', '3', '--dir', join(dir, 'job'), '--json'], env);
  if (sub.code !== 0) throw new Error(`submit failed: ${sub.stderr}`);
  jobId = (JSON.parse(sub.stdout) as { job_id: string }).job_id;
  for (const end = Date.now() + 240_000; ; ) {
    const s = await runCli(['cluster', 'status', jobId, '--json'], env);
    const state = (JSON.parse(s.stdout) as { state: string }).state;
    if (state !== 'running' && state !== 'pending') break;
    if (Date.now() > end) throw new Error(`job ${jobId} did not finish\n${slurm.logs()}`);
    await new Promise((r) => setTimeout(r, 1000));
  }
  server = spawn(process.execPath, [resolve('bin/caplab.mjs'), 'serve', '--backend', 'sim', '--port', '0'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  url = await new Promise<string>((ok, fail) => {
    let out = '';
    const timer = setTimeout(() => fail(new Error('caplab serve did not start')), 120_000);
    server!.stdout!.on('data', (d) => {
      out += String(d);
      const m = /serving at (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        ok(m[1]!);
      }
    });
  });
});

test.afterAll(async () => {
  test.setTimeout(120_000);
  if (server && server.exitCode === null) {
    server.kill('SIGTERM');
    await new Promise((r) => server!.once('exit', r));
  }
  await slurm?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('the Cluster page shows the job\'s tasks, collects them into one sweep and compares the nodes', async ({ page }, info) => {
  test.skip(info.project.name !== 'chromium', 'runs its own browser host; the chromium project covers it');
  test.setTimeout(180_000);
  await page.setViewportSize({ width: 1440, height: 960 });
  await page.goto(url);
  await page.getByTestId('nav-cluster').click();
  await expect(page.getByTestId('cluster-job-row')).toHaveCount(1);
  await expect(page.getByTestId('cluster-job-row')).toContainText(jobId);
  const tasks = page.getByTestId('cluster-tasks');
  await expect(tasks.locator('tbody tr')).toHaveCount(3);
  await expect(tasks).toContainText('completed');
  // Each node's own simulated GPUs and driver, as its task reported them.
  for (const n of ['node1', 'node2', 'node3']) for (const g of [0, 1]) await expect(tasks).toContainText(`SIM-${n}-h100-sxm-${g}`);
  await expect(tasks).toContainText('caplab-sim');

  await page.getByTestId('cluster-collect').click();
  await expect(page.getByText(/→ sweep #\d+: 12\/12 runs from 3\/3 tasks/)).toBeVisible();
  const analysis = page.getByTestId('node-analysis');
  await expect(analysis).toContainText('3 node(s)');
  await expect(page.getByTestId('node-best-table').locator('tbody tr')).toHaveCount(3);
  await expect(page.getByTestId('node-spread-table').locator('tbody tr')).toHaveCount(4);
  await expect(page.getByTestId('fleet-best')).toHaveText(/^\d+ W$/);
  await expect(page.getByTestId('node-efficiency-plot').locator('.scatterlayer .trace')).toHaveCount(3);

  // Collecting again adds nothing.
  await page.getByTestId('cluster-collect').click();
  await expect(page.getByText(/12\/12 runs from 3\/3 tasks \(0 new or updated\)/)).toBeVisible();

  if (process.env.CAPLAB_SCREENSHOTS) {
    const height = await page.locator('main').evaluate((el) => el.scrollHeight);
    await page.setViewportSize({ width: 1440, height: Math.min(4000, Math.max(960, height + 8)) });
    await page.waitForTimeout(1500);
    await page.screenshot({ path: `${process.env.CAPLAB_SCREENSHOTS_DIR ?? 'docs/screenshots'}/cluster.png` });
  }
});
