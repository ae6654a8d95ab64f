// The decisions of `caplab doctor`'s probes on inputs the test machine cannot produce (a real GPU's counter, sudo
// for a normal user, a full or read-only disk, a hung tool), and the runner's concurrency and time limits.
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { DeviceInfo } from '../../../src/shared/device';
import {
  chooseBackend,
  chromiumFinding,
  dataDirFinding,
  energyCounterFinding,
  failedOpening,
  folderState,
  openOne,
  powerLimitFinding,
  runProbes,
  slurmFinding,
  type FolderState,
  type LimitsInput,
  type Opening,
} from '../../../src/main/lab/doctor/doctor';
import { BackendError, type BackendModule } from '../../../src/main/lab/gpu/backend';
import { sudoListVerdict } from '../../../src/main/lab/gpu/cap-setter';
import { runTool, type ExecResult } from '../../../src/main/lab/gpu/tool-exec';
import { tempDir } from '../../helpers/tmp';
import { installShim, makeShimDir } from '../../helpers/gpu-shims';
import { nvidiaSmiBackend } from '../../../src/main/lab/gpu/nvidia-smi';

const tmp = tempDir('caplab-doctor-unit-');
afterAll(() => tmp.cleanup());

function gpu(index: number, counter: boolean, check: DeviceInfo['sensors']['energy_counter_check'] = counter ? 'ok' : 'absent'): DeviceInfo {
  return {
    id: `nvml:${index}`, index, backend: 'nvml', kind: 'gpu', name: 'NVIDIA H200', vendor: 'NVIDIA', simulated: false, uuid: null, pci_bus_id: null, driver: '580.1', vbios: null,
    limit_w: 700, enforced_limit_w: 700, min_limit_w: 200, max_limit_w: 700, default_limit_w: 700, memory_total_mb: null,
    sensors: { power_kinds: ['instant'], energy_counter: counter, energy_counter_check: check, update_period_ms: null, note: check === 'failed' ? 'energy counter went backwards' : undefined },
  } as DeviceInfo;
}

const opening = (id: Opening['id'], devices: DeviceInfo[], more: Partial<Opening> = {}): Opening => ({
  id, auto: true, opened: devices.length > 0, finding: { status: 'ok', detail: '' }, devices, simulated: false, reason: `using ${id}`, requested: `requested ${id}`, capArgv: ['nvidia-smi', '-i', '0', '-pl', '700'], ...more,
});
const exec = (code: number | null, stdout = '', stderr = '', error: string | null = null): ExecResult => ({ code, stdout, stderr, error });

describe('power limits', () => {
  const nvml = opening('nvml', [gpu(0, true)]);
  const base: LimitsInput = { opening: nvml, privilege: 'auto', root: false, sudoPath: '/usr/bin/sudo', sudoList: async () => exec(0, '/usr/bin/nvidia-smi -i 0 -pl 700\n') };
  const asked: string[][] = [];
  const recording: LimitsInput['sudoList'] = async (argv) => {
    asked.push(argv);
    return exec(0);
  };

  it('root and simulated GPUs need no sudo; sudo is asked only for a normal user, with the command setCap would run', async () => {
    expect(await powerLimitFinding({ ...base, root: true, sudoList: recording })).toMatchObject({ status: 'ok', detail: 'running as root: nvml sets limits directly' });
    expect(await powerLimitFinding({ ...base, privilege: 'root', sudoList: recording })).toMatchObject({ status: 'ok', detail: 'running as root (CAPLAB_PRIVILEGE=root): nvml sets limits directly' });
    expect((await powerLimitFinding({ ...base, opening: { ...nvml, simulated: true, capArgv: null }, sudoList: recording })).status).toBe('ok');
    expect(asked).toEqual([]);
    // CAPLAB_PRIVILEGE=sudo takes the sudo path even as root, as setCap does.
    expect(await powerLimitFinding({ ...base, privilege: 'sudo', root: true, sudoList: recording })).toMatchObject({ status: 'ok', path: '/usr/bin/sudo' });
    expect(asked).toEqual([['nvidia-smi', '-i', '0', '-pl', '700']]);
  });

  it('names what is missing and what to do', async () => {
    expect(await powerLimitFinding({ ...base, opening: null })).toMatchObject({ status: 'unavailable' });
    expect((await powerLimitFinding({ ...base, sudoPath: null })).detail).toMatch(/^not root, and sudo is not on PATH: run as root/);
    expect((await powerLimitFinding({ ...base, sudoList: async () => exec(1, '', 'sudo: a password is required\n') })).status).toBe('warning');
    const refused = await powerLimitFinding({ ...base, sudoList: async () => exec(1, '', 'Sorry, user alice may not run sudo on node3.\n') });
    expect(refused).toMatchObject({ status: 'unavailable' });
    expect(refused.detail).toBe('sudo does not let this user run `nvidia-smi -i 0 -pl 700` (Sorry, user alice may not run sudo on node3.): add the sudoers rule of docs/gpu-permissions.md, or run as root');
    expect((await powerLimitFinding({ ...base, sudoList: async () => exec(null, '', '', 'timed out after 5000 ms') })).detail).toMatch(/did not answer: timed out after 5000 ms$/);
    expect(await powerLimitFinding({ ...base, privilege: { error: 'CAPLAB_PRIVILEGE must be auto, root or sudo; got "x"' } })).toMatchObject({ status: 'warning' });
  });

  it('reads sudo -l as sudo answers it', () => {
    expect(sudoListVerdict(0, '/usr/bin/nvidia-smi -i 0 -pl 700')).toBe('allowed');
    expect(sudoListVerdict(1, 'sudo: a password is required')).toBe('password');
    expect(sudoListVerdict(1, '')).toBe('refused');
  });
});

describe('energy counter', () => {
  it('ok when every GPU has one; a warning for a failed check or a GPU without; unavailable when none has one', () => {
    expect(energyCounterFinding(opening('nvml', [gpu(0, true), gpu(1, true)]))).toMatchObject({ status: 'ok', detail: 'all 2 GPUs of nvml report an energy counter (start-up check: ok)', devices: 2 });
    const failed = energyCounterFinding(opening('nvml', [gpu(0, true), gpu(1, true, 'failed')]));
    expect(failed.status).toBe('warning');
    expect(failed.detail).toMatch(/^GPU 1 of nvml: the energy counter failed CapLab's start-up check \(energy counter went backwards\)/);
    expect(energyCounterFinding(opening('nvml', [gpu(0, true), gpu(1, false)])).detail).toMatch(/^GPU 1 of nvml reports no energy counter/);
    expect(energyCounterFinding(opening('nvidia-smi', [gpu(0, false)]))).toMatchObject({ status: 'unavailable' });
    expect(energyCounterFinding(null).status).toBe('unavailable');
  });
});

describe('backend choice', () => {
  const nvml = failedOpening({ id: 'nvml', auto: true }, new BackendError('nvml: libnvidia-ml.so.1 not found', 'nvml', 'unavailable'));
  const smi = opening('nvidia-smi', [gpu(0, false)], { reason: 'using nvidia-smi at /usr/bin/nvidia-smi' });
  const sim = opening('sim', [gpu(0, true)], { simulated: true, reason: 'using simulated GPUs' });
  const rapl = opening('rapl', [gpu(0, false)], { auto: false });

  it('auto takes the first auto backend that opened, in registry order, saying why each before it did not', () => {
    expect(nvml.finding).toMatchObject({ status: 'unavailable', detail: 'nvml: libnvidia-ml.so.1 not found' });
    const c = chooseBackend('auto', [nvml, rapl, smi, sim]);
    expect(c.opening?.id).toBe('nvidia-smi');
    expect(c.reason).toBe('nvml: libnvidia-ml.so.1 not found; using nvidia-smi at /usr/bin/nvidia-smi');
    expect(chooseBackend('auto', [nvml, sim]).reason).toBe('nvml: libnvidia-ml.so.1 not found; using simulated GPUs');
  });

  it('an explicit choice is that backend or none; a backend present but failing is a warning', () => {
    expect(chooseBackend('nvml', [nvml, sim])).toEqual({ opening: null, reason: 'nvml: libnvidia-ml.so.1 not found' });
    expect(chooseBackend('sim', [nvml, sim])).toMatchObject({ opening: { id: 'sim' }, reason: 'requested sim' });
    expect(failedOpening({ id: 'nvml', auto: true }, new BackendError('nvml: Insufficient Permissions', 'nvml', 'permission')).finding.status).toBe('warning');
  });

  it('a backend that does not answer is reported at the time limit', async () => {
    const hung: BackendModule = { id: 'nvidia-smi', auto: true, vendor: 'nvidia', open: () => new Promise(() => {}), chosen: () => '' };
    const t = performance.now();
    const o = await openOne(hung, { env: {} }, 100);
    expect(performance.now() - t).toBeLessThan(1000);
    expect(o).toMatchObject({ opened: false, finding: { status: 'warning', detail: 'nvidia-smi: did not answer within 0.1 s' } });
  });

  it('a hung vendor tool is ended at the probe limit, so the CLI does not wait for the tool\'s own 15 s', async () => {
    const s = makeShimDir();
    try {
      installShim(s, 'nvidia-smi', 'exec sleep 30');
      const t = performance.now();
      const o = await openOne(nvidiaSmiBackend, { env: s.env, toolTimeoutMs: 200 }, 5000);
      expect(performance.now() - t).toBeLessThan(2000);
      expect(o.opened).toBe(false);
      expect(o.finding.detail).toMatch(/^nvidia-smi: .*timed out after 200 ms/);
    } finally {
      s.cleanup();
    }
  });
});

describe('the probe runner', () => {
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  it('runs probes at once; one that throws or hangs is a warning at its limit', async () => {
    const t = performance.now();
    const checks = await runProbes(
      [
        ...[1, 2, 3].map((i) => ({ id: `slow${i}`, title: 'slow', run: async () => (await sleep(150), { status: 'ok' as const, detail: 'done' }) })),
        { id: 'hung', title: 'hung', run: () => new Promise<never>(() => {}) },
        { id: 'broken', title: 'broken', run: async () => Promise.reject(new Error('ENOENT somewhere')) },
      ],
      300,
    );
    const wall = performance.now() - t;
    expect(wall).toBeLessThan(3 * 150 + 300);
    expect(checks.map((c) => [c.id, c.status, c.detail])).toEqual([
      ['slow1', 'ok', 'done'], ['slow2', 'ok', 'done'], ['slow3', 'ok', 'done'],
      ['hung', 'warning', 'did not answer within 0.3 s'],
      ['broken', 'warning', 'the check failed: ENOENT somewhere'],
    ]);
    expect(checks[3]!.elapsed_ms).toBeGreaterThanOrEqual(290);
  });
});

describe('slurm and chromium', () => {
  const all = { sinfo: '/x/sinfo', srun: '/x/srun', sbatch: '/x/sbatch', squeue: '/x/squeue', scancel: '/x/scancel' };
  it('slurm: absent, partial, answering, or a controller that does not answer (a real hung sinfo, stopped at its limit)', async () => {
    const none = { sinfo: null, srun: null, sbatch: null, squeue: null, scancel: null };
    expect((await slurmFinding(none, async () => exec(0))).status).toBe('unavailable');
    expect(await slurmFinding(all, async () => exec(0, 'gpu*\n'))).toMatchObject({ status: 'ok', detail: 'sinfo answers: 1 partition (gpu*)' });
    expect(await slurmFinding({ ...all, srun: null }, async () => exec(0, 'gpu*\n'))).toMatchObject({ status: 'warning', detail: 'sinfo answers: 1 partition (gpu*); not on PATH: srun' });
    const script = join(tmp.dir, 'sinfo');
    writeFileSync(script, '#!/bin/sh\nexec sleep 30\n');
    chmodSync(script, 0o755);
    const t = performance.now();
    const hung = await slurmFinding(all, () => runTool([script], { timeoutMs: 200 }));
    expect(performance.now() - t).toBeLessThan(2000);
    expect(hung).toMatchObject({ status: 'warning', detail: 'sinfo did not answer (timed out after 200 ms): is the Slurm controller up?' });
  });

  it('chromium: a browser that will not start is a warning', async () => {
    const broken = join(tmp.dir, 'chromium');
    writeFileSync(broken, '#!/bin/sh\necho "error while loading shared libraries: libnss3.so" >&2; exit 127\n');
    chmodSync(broken, 0o755);
    const f = await chromiumFinding(async () => broken, (p) => runTool([p, '--version'], { timeoutMs: 2000 }));
    expect(f).toMatchObject({ status: 'warning', path: broken });
    expect(f.detail).toMatch(/--version` failed \(error while loading shared libraries: libnss3\.so\): PDF reports may fail$/);
  });
});

describe('database and data folder', () => {
  const folder = (more: Partial<FolderState> = {}): FolderState => ({ path: '/d', exists: true, nearest: '/d', unwritable: null, free_bytes: 50 * 1024 ** 3, ...more });
  const db = { path: '/d/caplab.db', exists: true, bytes: 2 * 1024 ** 2, unwritable: null };
  it('ok with room; a warning when low; unavailable when full or unwritable', () => {
    expect(dataDirFinding(db, [folder()])).toEqual({ status: 'ok', detail: 'database /d/caplab.db (2.0 MiB); /d: writable, 50.0 GiB free', path: '/d/caplab.db' });
    expect(dataDirFinding(db, [folder({ free_bytes: 200 * 1024 ** 2 })]).detail).toMatch(/^only 200\.0 MiB free under \/d: a long sweep or a large import may fill it — /);
    expect(dataDirFinding(db, [folder({ free_bytes: 4096 })])).toMatchObject({ status: 'unavailable' });
    expect(dataDirFinding(db, [folder({ free_bytes: 4096 })]).detail).toMatch(/^the disk holding \/d is full \(4\.0 KiB free\)/);
    expect(dataDirFinding(db, [folder({ unwritable: 'EACCES' })]).detail).toMatch(/^cannot write \/d \(EACCES\): set CAPLAB_DATA_DIR or --db FILE/);
    expect(dataDirFinding({ ...db, unwritable: 'EROFS' }, [folder()]).detail).toMatch(/^cannot write the database \/d\/caplab\.db \(EROFS\)/);
  });

  it('a folder not created yet is judged by its nearest existing parent, which is not touched', async () => {
    mkdirSync(join(tmp.dir, 'here'));
    const f = await folderState(join(tmp.dir, 'here', 'a', 'b'));
    expect(f).toMatchObject({ exists: false, nearest: join(tmp.dir, 'here'), unwritable: null });
    expect(f.free_bytes).toBeGreaterThan(0);
    expect(await folderState(join(tmp.dir, 'here'))).toMatchObject({ exists: true, nearest: join(tmp.dir, 'here') });
  });
});
