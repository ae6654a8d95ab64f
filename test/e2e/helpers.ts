// Helpers for the newcomer specs: small, fast simulated sweeps through the engine API, and a watch for page
// errors and failed requests.
import type { Page } from '@playwright/test';
import { callApi, expect } from './fixtures';

/** A plan of `caps` x `reps` short runs on a simulated H100 at a high speed-up (seconds of wall time per run). */
export function quickPlan(name: string, caps: number[], reps = 1, extra: Record<string, unknown> = {}) {
  return { name, backend: 'sim', workloads: [{ id: 'vit_l_16', params: { batch_size: 128 } }], caps, repetitions: reps, order: 'sequential', warmup: { seconds: 15 }, window: { seconds: 30 }, cooldown_s: 3, sim: { speedup: 20, devices: ['h100-sxm'] }, ...extra };
}

export async function startSweep(app: Page, plan: unknown): Promise<number> {
  return (await callApi<{ sweep_id: number }>(app, 'startSweep', { plan })).sweep_id;
}

export async function sweepStatus(app: Page, id: number): Promise<string> {
  return (await callApi<{ sweep: { status: string } }>(app, 'getSweep', { sweep_id: id })).sweep.status;
}

export async function waitEnded(app: Page, id: number, timeout = 120_000): Promise<string> {
  await expect.poll(() => sweepStatus(app, id), { timeout, intervals: [500, 1000] }).not.toBe('running');
  return sweepStatus(app, id);
}

/** Collects uncaught page errors, console errors and failed or 4xx/5xx requests from now on. */
export function watchProblems(app: Page): string[] {
  const problems: string[] = [];
  app.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  app.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console.error: ${m.text()}`);
  });
  app.on('requestfailed', (r) => {
    // A page reload or navigation aborts the open event stream; that is no failure of the app.
    if (r.failure()?.errorText !== 'net::ERR_ABORTED') problems.push(`requestfailed: ${r.url()} ${r.failure()?.errorText}`);
  });
  app.on('response', (r) => {
    if (r.status() >= 400) problems.push(`HTTP ${r.status()}: ${r.url()}`);
  });
  return problems;
}
