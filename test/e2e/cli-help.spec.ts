// The CLI a newcomer reads next to the app: help that explains each flag, no stack traces, a next step.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, expect } from '@playwright/test';

function caplab(args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, ['bin/caplab.mjs', ...args], { encoding: 'utf8', env: { ...process.env, ...env }, timeout: 120_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

// eslint-disable-next-line no-empty-pattern -- Playwright needs the destructuring pattern
test('caplab help, errors and the sweep table read well for a newcomer', async ({}, info) => {
  test.skip(info.project.name !== 'chromium', 'the CLI is checked once');
  test.setTimeout(180_000);
  const dir = mkdtempSync(join(tmpdir(), 'caplab-cli-e2e-'));
  try {
    const env = { CAPLAB_DATA_DIR: dir, CAPLAB_SIM_STATE_DIR: join(dir, 'sim') };
    const help = caplab(['sweep', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/--db FILE\n\s+The lab database \(SQLite\)/);
    expect(help.stdout).toMatch(/Default: \$CAPLAB_DB/);
    expect(help.stdout).toMatch(/Examples:\n\s+caplab sweep resources\/plans\/demo-sim\.yaml/);
    const nvml = caplab(['devices', '--backend', 'nvml'], env);
    expect(nvml.code).not.toBe(0);
    expect(nvml.stderr).not.toMatch(/\n\s+at /);
    const plan = join(dir, 'p.yaml');
    writeFileSync(plan, 'backend: sim\nworkloads: [{id: vit_l_16}]\ncaps: [300, 450]\nwarmup: {seconds: 4}\nwindow: {seconds: 8}\ncooldown_s: 0\nsim: {speedup: 100}\n');
    const sweep = caplab(['sweep', plan, '--db', join(dir, 'lab.db')], env);
    expect(sweep.code, sweep.stderr).toBe(0);
    expect(sweep.stdout).toContain('GPU energy J');
    expect(sweep.stdout).toMatch(/\* units\/J: work per joule of GPU energy plus the plan's node overhead/);
    expect(sweep.stdout).toMatch(/Next: caplab analyze \d+/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
