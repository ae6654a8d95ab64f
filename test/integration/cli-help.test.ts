import { afterAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { commandLoaders } from '../../src/main/cli/commands';
import { analysisOptions } from '../../src/main/cli/analysis-options';
import { flagDoc } from '../../src/main/cli/help';
import { runCli } from '../helpers/cli';
import { tempDir } from '../helpers/tmp';

const tmp = tempDir();
afterAll(() => tmp.cleanup());
const env = { CAPLAB_DATA_DIR: tmp.dir, CAPLAB_SIM_STATE_DIR: join(tmp.dir, 'sim') };

describe('CLI help a newcomer can act on', () => {
  it('every public flag of a visible command is in its usage line and in its README row (internal flags excepted)', async () => {
    const readme = readFileSync(join(__dirname, '../../README.md'), 'utf8').split('\n');
    for (const load of Object.values(commandLoaders)) {
      const cmd = await load();
      if (cmd.hidden) continue;
      const rows = readme.filter((l) => l.startsWith(`| \`caplab ${cmd.name} `) || l.startsWith(`| \`caplab ${cmd.name}\``)).join('\n');
      expect(rows, `README has no CLI reference row for caplab ${cmd.name}`).not.toBe('');
      for (const flag of Object.keys(cmd.options)) {
        if (flagDoc(cmd, flag)?.text.startsWith('Internal')) continue;
        expect(cmd.usage, `caplab ${cmd.name}'s usage line lacks --${flag}`).toContain(`--${flag}`);
        // A row may name the shared analysis flags together as "[analysis options]".
        if (flag in analysisOptions && rows.includes('[analysis options]')) continue;
        expect(rows, `README's row for caplab ${cmd.name} lacks --${flag}`).toContain(`--${flag}`);
      }
    }
  });

  it('caplab sweep --help says what --backend and --db do, their defaults and an example', async () => {
    const r = await runCli(['sweep', '--help'], env);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/--backend NAME\n\s+Which GPUs to drive: auto, sim, nvml, nvidia-smi or amd-smi/);
    expect(r.stdout).toMatch(/--db FILE\n\s+The lab database/);
    expect(r.stdout).toContain('Default: $CAPLAB_DB');
    expect(r.stdout).toContain('Example: --backend sim');
    expect(r.stdout).toContain('caplab sweep resources/plans/demo-sim.yaml');
    expect(r.stdout).not.toContain('VALUE');
  });

  it('a missing NVML is one message, without a JavaScript stack trace', async () => {
    const r = await runCli(['devices', '--backend', 'nvml'], env);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/^caplab devices: nvml: .*libnvidia-ml/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});

describe('CLI output that says what its numbers mean', () => {
  it('the sweep table says what units/J includes and names the next step; analyze gives the value\'s unit and explains *', { timeout: 120_000 }, async () => {
    const { writeFileSync } = await import('node:fs');
    const plan = join(tmp.dir, 'tiny.yaml');
    writeFileSync(plan, 'name: tiny\nbackend: sim\nworkloads: [{id: vit_l_16}]\ncaps: [300, 500]\nwarmup: {seconds: 4}\nwindow: {seconds: 8}\ncooldown_s: 0\noverhead_w: 100\nsim: {speedup: 100, devices: [h100-sxm]}\n');
    const db = join(tmp.dir, 'tiny.db');
    const r = await runCli(['sweep', plan, '--db', db], env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('GPU energy J');
    expect(r.stdout).toMatch(/\* units\/J: work per joule of GPU energy plus the plan's node overhead \(100 W/);
    const id = /^sweep (\d+)/.exec(r.stdout)![1];
    expect(r.stdout).toContain(`Next: caplab analyze ${id}`);
    const a = await runCli(['analyze', id!, '--db', db], env);
    expect(a.code, a.stderr).toBe(0);
    expect(a.stdout).toContain('unit of value');
    expect(a.stdout).toMatch(/max-efficiency \*\s+\S+\s+\S+\s+images\/J/);
    expect(a.stdout).toContain('* the selector asked for');
  });
});
