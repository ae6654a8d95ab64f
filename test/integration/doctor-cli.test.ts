// `caplab doctor` (issue #26): the real CLI on this machine (no GPU, the simulated backend, Chromium maybe, Slurm
// maybe) and on a shimmed one (nvidia-smi, sudo, a powercap tree, the Slurm commands), with what each check must
// say judged from the machine itself, and nothing on it changed.
import { afterAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../helpers/cli';
import { tempDir } from '../helpers/tmp';
import { installFakeRapl, installNvidiaSmi, installShim, installSudo, makeShimDir } from '../helpers/gpu-shims';
import { DoctorReport, type DoctorCheck } from '../../src/shared/doctor';
import { backendRegistry } from '../../src/main/lab/gpu/registry';
import { findOnPath } from '../../src/main/lab/gpu/tool-exec';

const tmp = tempDir('caplab-doctor-');
afterAll(() => tmp.cleanup());

const IDS = [...backendRegistry.map((b) => `backend.${b.id}`), 'backend.choice', 'power-limits', 'energy-counter', 'slurm', 'chromium', 'data-dir'];

async function doctor(args: string[], env: NodeJS.ProcessEnv): Promise<{ report: DoctorReport; check: (id: string) => DoctorCheck; stderr: string }> {
  const r = await runCli(['doctor', '--json', ...args], env);
  expect(r.code, r.stderr).toBe(0);
  const report = DoctorReport.parse(JSON.parse(r.stdout));
  return { report, check: (id) => report.checks.find((c) => c.id === id)!, stderr: r.stderr };
}

/** Every file and folder under `dir`, to show a run wrote nothing. */
const tree = (dir: string) => (existsSync(dir) ? readdirSync(dir, { recursive: true }).map(String).sort() : []);

describe('caplab doctor on this machine', () => {
  it('reports every check with the status this machine warrants, fast, changing nothing', async () => {
    const data = join(tmp.dir, 'data');
    const env = { CAPLAB_DATA_DIR: data, PATH: '/usr/bin:/bin' };
    const before = tree(tmp.dir);
    const { report, check } = await doctor([], env);
    expect(report.checks.map((c) => c.id)).toEqual(IDS);
    expect(report.summary.ok + report.summary.warning + report.summary.unavailable).toBe(IDS.length);
    // Probes run at once, each within its limit: the whole is far under the sum of the limits.
    expect(report.wall_ms).toBeLessThan(report.timeout_ms);
    expect(report.environment.caplab_version).toMatch(/\d+\.\d+/);

    expect(check('backend.sim')).toMatchObject({ status: 'ok', devices: 1 });
    expect(check('backend.sim').detail).toMatch(/1 GPU: .*\(simulated\)/);
    if (!existsSync('/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1') && !existsSync('/usr/lib64/libnvidia-ml.so.1')) {
      expect(check('backend.nvml')).toMatchObject({ status: 'unavailable', devices: 0 });
      expect(check('backend.nvml').detail).toMatch(/^nvml: libnvidia-ml\.so\.1 not found/);
      expect(report.backend).toMatchObject({ choice: 'auto', chosen: 'sim' });
      expect(report.backend.reason).toMatch(/nvidia-smi: not on PATH; amd-smi: not on PATH; rocm-smi: not on PATH; using simulated GPUs$/);
      expect(check('backend.choice').detail).toMatch(/^auto chooses sim \(simulated GPUs/);
      expect(check('power-limits')).toMatchObject({ status: 'ok' });
      expect(check('power-limits').detail).toMatch(/^simulated GPUs: their limits need no privilege/);
      expect(check('energy-counter')).toMatchObject({ status: 'ok' });
    }
    expect(check('backend.nvidia-smi')).toMatchObject({ status: 'unavailable', detail: 'nvidia-smi: not on PATH' });
    if (!existsSync('/sys/class/powercap')) expect(check('backend.rapl')).toMatchObject({ status: 'unavailable', detail: '/sys/class/powercap does not exist (no powercap/RAPL on this machine or kernel)' });

    // Chromium as the report exporter finds it; `--version` proves it starts.
    if (existsSync('/usr/bin/chromium')) {
      expect(check('chromium')).toMatchObject({ status: 'ok', path: '/usr/bin/chromium' });
      expect(check('chromium').detail).toMatch(/^Chromium \d+\..* at \/usr\/bin\/chromium/);
    }

    // Slurm: unavailable without its commands; with them, ok only where sinfo really answers.
    const sinfo = findOnPath('sinfo', env);
    if (!sinfo) expect(check('slurm').status).toBe('unavailable');
    else {
      const answers = spawnSync(sinfo, ['-h', '-o', '%P'], { encoding: 'utf8', timeout: 5000 }).status === 0;
      const all = ['srun', 'sbatch', 'squeue', 'scancel'].every((t) => findOnPath(t, env));
      expect(check('slurm').status).toBe(answers && all ? 'ok' : 'warning');
      if (!answers) expect(check('slurm').detail).toMatch(/^sinfo (is on PATH but gets no answer|did not answer)/);
    }

    expect(check('data-dir')).toMatchObject({ status: 'ok', path: join(data, 'caplab.db') });
    expect(check('data-dir').detail).toMatch(/not created yet.*to be created in .*writable, [\d.]+ [KMGT]iB free/);
    expect(tree(tmp.dir)).toEqual(before);
  });

  it('prints a table for people, lists itself in --help and explains its flags', async () => {
    const env = { CAPLAB_DATA_DIR: join(tmp.dir, 'data'), PATH: '/usr/bin:/bin' };
    const r = await runCli(['doctor'], env);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^check\s+status\s+detail/);
    expect(r.stdout).toMatch(/\nbackend\.sim\s+ok\s+1 GPU/);
    expect(r.stdout).toMatch(/\d+ ok, \d+ warnings?, \d+ unavailable, in [\d.]+ s \(each probe within 5 s; nothing was changed\)/);
    const help = await runCli(['--help'], env);
    expect(help.stdout).toMatch(/\n {2}doctor\s+What this machine offers CapLab/);
    const own = await runCli(['doctor', '--help'], env);
    expect(own.code).toBe(0);
    expect(own.stdout).toContain('Usage: caplab doctor [--backend');
    expect(own.stdout).toMatch(/--db FILE\n\s+The lab database whose file and folder are checked/);
    expect(own.stdout).toContain('caplab doctor --json');
  });

  it('exits 2 for bad flags only', async () => {
    const env = { CAPLAB_DATA_DIR: join(tmp.dir, 'data') };
    const bad = await runCli(['doctor', '--verbose'], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/caplab doctor: doctor: Unknown option '--verbose'/);
    const backend = await runCli(['doctor', '--backend', 'cuda'], env);
    expect(backend.code).toBe(2);
    expect(backend.stderr).toContain('--backend must be one of auto, sim, nvml, nvidia-smi, amd-smi; got "cuda"');
    // An explicit backend that cannot open is a finding, not a failure.
    const { report, check } = await doctor(['--backend', 'nvidia-smi'], { ...env, PATH: '/usr/bin:/bin' });
    expect(report.backend).toMatchObject({ choice: 'nvidia-smi', chosen: null, reason: 'nvidia-smi: not on PATH' });
    expect(check('backend.choice')).toMatchObject({ status: 'unavailable', detail: 'nvidia-smi: not on PATH' });
    expect(check('energy-counter').status).toBe('unavailable');
    expect(check('power-limits').status).toBe('unavailable');
  });
});

describe('caplab doctor on a shimmed GPU node', () => {
  const s = makeShimDir();
  installNvidiaSmi(s);
  installSudo(s);
  installShim(s, 'sinfo', 'printf "gpu*\\ncpu\\n"');
  for (const t of ['srun', 'sbatch', 'squeue', 'scancel']) installShim(s, t, 'exit 0');
  const rapl = installFakeRapl(s, 80);
  afterAll(() => {
    rapl.stop();
    s.cleanup();
  });
  // CAPLAB_PRIVILEGE=sudo: the path a normal user takes, even where the tests run as root.
  const env = (more: NodeJS.ProcessEnv = {}) => ({ ...s.env, CAPLAB_DATA_DIR: join(s.dir, 'data'), CAPLAB_RAPL_ROOT: rapl.root, CAPLAB_PRIVILEGE: 'sudo', CAPLAB_BROWSER_PATHS: '', ...more });

  it('finds the GPUs, RAPL and Slurm, and asks sudo about the limit command without running it', async () => {
    const { report, check } = await doctor(['--backend', 'nvidia-smi'], env());
    expect(check('backend.nvidia-smi')).toMatchObject({ status: 'ok', devices: 2, detail: '2 GPUs: NVIDIA H200 ×2 (driver 580.159.04)' });
    expect(report.backend).toMatchObject({ choice: 'nvidia-smi', chosen: 'nvidia-smi' });
    expect(check('energy-counter')).toMatchObject({ status: 'unavailable' });
    expect(check('energy-counter').detail).toMatch(/^no GPU of nvidia-smi reports an energy counter: energy is integrated from instant\/average power readings/);
    expect(check('power-limits')).toMatchObject({ status: 'ok', path: join(s.bin, 'sudo') });
    expect(check('power-limits').detail).toBe('sudo runs `nvidia-smi -i 0 -pl 700` without a password (the sudoers rule of docs/gpu-permissions.md)');
    expect(check('backend.rapl')).toMatchObject({ status: 'ok', devices: 1, path: rapl.root });
    expect(check('slurm')).toMatchObject({ status: 'ok', detail: 'sinfo answers: 2 partitions (gpu*, cpu)', path: join(s.bin, 'sinfo') });
    expect(check('chromium')).toMatchObject({ status: 'unavailable' });
    expect(check('chromium').detail).toMatch(/^no Chromium or Chrome found .*; until then reports are written as HTML$/);
    // sudo was asked in list mode; no limit was set (the shim keeps GPU 0's limit in a file on -pl).
    const calls = s.calls();
    expect(calls).toContainEqual(['sudo', '-n', '-l', '--', 'nvidia-smi', '-i', '0', '-pl', '700']);
    expect(calls.filter((c) => c[0] === 'nvidia-smi' && c.includes('-pl'))).toEqual([]);
    expect(existsSync(join(s.dir, 'limit0'))).toBe(false);
    expect(existsSync(join(s.dir, 'data'))).toBe(false);
  });

  it('says when sudo wants a password or refuses, and what to do', async () => {
    const pw = await doctor(['--backend', 'nvidia-smi'], env({ SHIM_SUDO: 'password' }));
    expect(pw.check('power-limits')).toMatchObject({ status: 'warning' });
    expect(pw.check('power-limits').detail).toMatch(/^sudo asks a password for `nvidia-smi -i 0 -pl 700`: .*add the sudoers rule of docs\/gpu-permissions\.md$/);
    const no = await doctor(['--backend', 'nvidia-smi'], env({ SHIM_SUDO: 'refuse' }));
    expect(no.check('power-limits')).toMatchObject({ status: 'unavailable' });
    expect(no.check('power-limits').detail).toMatch(/^sudo does not let this user run `nvidia-smi -i 0 -pl 700` \(tester is not in the sudoers file\.\): add the sudoers rule/);
    const bad = await doctor(['--backend', 'nvidia-smi'], env({ CAPLAB_PRIVILEGE: 'admin' }));
    expect(bad.check('power-limits')).toMatchObject({ status: 'warning', detail: 'CAPLAB_PRIVILEGE must be auto, root or sudo; got "admin"' });
    expect(bad.check('backend.nvidia-smi').status).toBe('ok');
    expect(readFileSync(join(s.dir, 'argv.log'), 'utf8')).not.toMatch(/^nvidia-smi\x1f.*-pl/m);
  });
});
