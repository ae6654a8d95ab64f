import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BackendError } from '../../../src/main/lab/gpu/backend';
import { amdCapArgv } from '../../../src/main/lab/gpu/amd-smi';
import { nvidiaSmiCapArgv } from '../../../src/main/lab/gpu/nvidia-smi';
import { SUDO_PROMPT, setCap, sudoArgv, validateCap, type SetCapOptions } from '../../../src/main/lab/gpu/cap-setter';
import { installNvidiaSmi, installShim, installSudo, makeShimDir, type ShimDir } from '../../helpers/gpu-shims';

const H200 = { min_limit_w: 200, max_limit_w: 700 };

describe('cap argv', () => {
  it('builds each tool\'s argv and the sudo wrapper as arrays', () => {
    expect(nvidiaSmiCapArgv(1, 250)).toEqual(['nvidia-smi', '-i', '1', '-pl', '250']);
    expect(nvidiaSmiCapArgv(0, 262.5)).toEqual(['nvidia-smi', '-i', '0', '-pl', '262.5']);
    expect(amdCapArgv('amd-smi', 3, 400)).toEqual(['amd-smi', 'set', '--gpu', '3', '--power-cap', '400']);
    expect(amdCapArgv('rocm-smi', 2, 450)).toEqual(['rocm-smi', '-d', '2', '--setpoweroverdrive', '450']);
    expect(sudoArgv(['nvidia-smi', '-i', '0', '-pl', '250'], true)).toEqual(['sudo', '-p', SUDO_PROMPT, '--', 'nvidia-smi', '-i', '0', '-pl', '250']);
    expect(sudoArgv(['x'], false)).toEqual(['sudo', '-n', '-p', SUDO_PROMPT, '--', 'x']);
    expect(SUDO_PROMPT).toBe('[caplab] sudo password for %u: ');
  });

  it('names the allowed range when a cap is out of range', () => {
    expect(() => validateCap(150, H200, 'nvml', 'GPU 0 (NVIDIA H200)')).toThrow('power limit 150 W is outside the allowed range 200-700 W for GPU 0 (NVIDIA H200)');
    expect(() => validateCap(701, H200, 'nvml')).toThrow(BackendError);
    expect(() => validateCap(Number.NaN, H200, 'nvml')).toThrow(/positive number/);
    expect(() => validateCap(450, { min_limit_w: null, max_limit_w: null }, 'rocm-smi')).not.toThrow();
    expect(() => validateCap(200, H200, 'nvml')).not.toThrow();
    expect(() => validateCap(700, H200, 'nvml')).not.toThrow();
  });
});

describe('setCap through shims on PATH', () => {
  let s: ShimDir;
  const readBack = () => async () => {
    try {
      return Number(readFileSync(join(s.dir, 'limit0'), 'utf8'));
    } catch {
      return 700;
    }
  };
  /** setCap on GPU 0 of the nvidia-smi shim (an H200's range), read back from the shim. */
  const capGpu0 = (watts: number, privilege: 'root' | 'sudo', onPty?: SetCapOptions['onPty']) =>
    setCap({ backend: 'nvidia-smi', argv: nvidiaSmiCapArgv(0, watts), index: 0, watts, constraints: H200, readBack: readBack(), privilege, env: s.env, onPty });
  beforeEach(() => {
    s = makeShimDir();
    installNvidiaSmi(s);
    installSudo(s);
  });
  afterEach(() => s.cleanup());

  it('runs sudo -n ... nvidia-smi -i N -pl W in a pty as a normal user and verifies the read-back', async () => {
    const r = await capGpu0(250, 'sudo');
    expect(r).toMatchObject({ requested_w: 250, enforced_w: 250, via: 'sudo' });
    expect(s.calls()).toEqual([
      ['sudo', '-n', '-p', SUDO_PROMPT, '--', 'nvidia-smi', '-i', '0', '-pl', '250'],
      ['nvidia-smi', '-i', '0', '-pl', '250'],
    ]);
    expect(r.output).toContain('was set to 250.00 W');
  });

  it('runs the tool directly as root', async () => {
    const r = await capGpu0(300, 'root');
    expect(r.via).toBe('direct');
    expect(s.calls()).toEqual([['nvidia-smi', '-i', '0', '-pl', '300']]);
  });

  it('rejects an out-of-range cap before anything runs', async () => {
    const err = await capGpu0(150, 'sudo').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BackendError);
    expect((err as BackendError).code).toBe('out-of-range');
    expect((err as Error).message).toMatch(/allowed range 200-700 W/);
    expect(s.calls()).toEqual([]);
  });

  it('fails clearly when the enforced limit does not match', async () => {
    s.env.SHIM_IGNORE_SET = '1';
    const err = await capGpu0(250, 'root').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BackendError);
    expect((err as BackendError).code).toBe('failed');
    expect((err as Error).message).toMatch(/reads back as 700 W after `nvidia-smi -i 0 -pl 250` asked for 250 W; the cap is not in effect/);
  });

  it('reports a refused sudo as a permission error with the sudoers hint', async () => {
    s.env.SHIM_SUDO = 'password';
    const noTty = await capGpu0(250, 'sudo').catch((e: unknown) => e);
    expect(noTty).toMatchObject({ code: 'permission' });
    expect((noTty as Error).message).toMatch(/a password is required.*docs\/gpu-permissions\.md/);
    s.env.SHIM_SUDO = 'refuse';
    const refused = await capGpu0(250, 'sudo').catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: 'permission' });
    expect((refused as Error).message).toMatch(/not in the sudoers file/);
    expect(s.calls().filter((c) => c[0] === 'nvidia-smi')).toEqual([]);
  });

  it('hands the pty to onPty so a person can type the password', async () => {
    s.env.SHIM_SUDO = 'password';
    s.env.SHIM_SUDO_PASSWORD = 'hunter2';
    let seen = '';
    const r = await capGpu0(275, 'sudo', (p) =>
      p.onData((d) => {
        seen += d;
        if (seen.includes('[caplab] sudo password for tester: ') && !seen.includes('\u0000sent')) {
          seen += '\u0000sent';
          p.write('hunter2\r');
        }
      }),
    );
    expect(r).toMatchObject({ enforced_w: 275, via: 'sudo' });
    expect(s.calls()[0]).toEqual(['sudo', '-p', SUDO_PROMPT, '--', 'nvidia-smi', '-i', '0', '-pl', '275']);
  });

  it('a wrong password fails as a permission error', async () => {
    s.env.SHIM_SUDO = 'password';
    s.env.SHIM_SUDO_PASSWORD = 'hunter2';
    const err = await capGpu0(275, 'sudo', (p) => {
      let asked = false;
      p.onData((d) => {
        if (!asked && d.includes('sudo password')) {
          asked = true;
          p.write('wrong\r');
        }
      });
    }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'permission' });
    expect((err as Error).message).toMatch(/incorrect password/);
  });

  it('reports the tool\'s own failure', async () => {
    s.env.SHIM_PL_FAIL = '1';
    const err = await capGpu0(250, 'root').catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'failed' });
    expect((err as Error).message).toMatch(/not supported in current scope/);
  });

  it('sets AMD caps with amd-smi set --gpu N --power-cap W through sudo', async () => {
    installShim(s, 'amd-smi', 'echo "$5" > "$SHIM_DIR/amd"; echo "Successfully set power cap"');
    const r = await setCap({
      backend: 'amd-smi',
      argv: amdCapArgv('amd-smi', 1, 400),
      index: 1,
      watts: 400,
      constraints: { min_limit_w: 0, max_limit_w: 750 },
      readBack: async () => Number(readFileSync(join(s.dir, 'amd'), 'utf8')),
      privilege: 'sudo',
      env: s.env,
    });
    expect(r.enforced_w).toBe(400);
    expect(s.calls()).toEqual([
      ['sudo', '-n', '-p', SUDO_PROMPT, '--', 'amd-smi', 'set', '--gpu', '1', '--power-cap', '400'],
      ['amd-smi', 'set', '--gpu', '1', '--power-cap', '400'],
    ]);
  });

  it('says so when the tool is not on PATH', async () => {
    const err = await setCap({ backend: 'rocm-smi', argv: amdCapArgv('rocm-smi', 0, 400), index: 0, watts: 400, constraints: H200, readBack: readBack(), env: s.env }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'unavailable' });
    expect((err as Error).message).toMatch(/rocm-smi is not on PATH/);
  });
});
