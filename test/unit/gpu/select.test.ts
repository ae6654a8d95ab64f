import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openBackend } from '../../../src/main/lab/gpu/select';
import { installNvidiaSmi, installShim, makeShimDir, type ShimDir } from '../../helpers/gpu-shims';

describe('openBackend', () => {
  let s: ShimDir;
  let simDir = '';
  beforeEach(() => {
    s = makeShimDir();
    simDir = mkdtempSync(join(tmpdir(), 'caplab-simstate-'));
  });
  afterEach(() => {
    s.cleanup();
    rmSync(simDir, { recursive: true, force: true });
  });
  const base = () => ({ env: s.env, simStateDir: simDir, nvmlLibPath: join(s.dir, 'libnvidia-ml.so.1') });

  it('auto falls through to the simulated GPUs and says why at each step', async () => {
    const { backend, reason } = await openBackend('auto', base());
    try {
      expect(backend.name).toBe('sim');
      expect(backend.simulated).toBe(true);
      expect(reason).toMatch(/^nvml: .*libnvidia-ml\.so\.1 not found.*; nvidia-smi: not on PATH; amd-smi: not on PATH; rocm-smi: not on PATH; using simulated GPUs$/);
    } finally {
      await backend.close();
    }
  });

  it('auto picks nvidia-smi when it is on PATH and lists a GPU', async () => {
    installNvidiaSmi(s);
    const { backend, reason } = await openBackend('auto', base());
    try {
      expect(backend.name).toBe('nvidia-smi');
      expect(reason).toMatch(/^nvml: .* not found.*; using nvidia-smi at .*\/bin\/nvidia-smi$/);
    } finally {
      await backend.close();
    }
  });

  it('auto skips an nvidia-smi that finds no GPU and names why', async () => {
    installNvidiaSmi(s);
    s.env.SHIM_NO_GPU = '1';
    installShim(s, 'amd-smi', 'echo "ERROR: no AMD GPUs found" >&2; exit 1');
    const { backend, reason } = await openBackend('auto', base());
    try {
      expect(backend.name).toBe('sim');
      expect(reason).toMatch(/nvidia-smi: No devices were found; amd-smi static .*no AMD GPUs found; rocm-smi: not on PATH; using simulated GPUs/);
    } finally {
      await backend.close();
    }
  });

  it('an explicit backend that cannot open is an error, not a silent fallback', async () => {
    await expect(openBackend('nvml', base())).rejects.toMatchObject({ code: 'unavailable', backend: 'nvml' });
    await expect(openBackend('nvidia-smi', base())).rejects.toMatchObject({ code: 'unavailable', message: 'nvidia-smi: not on PATH' });
    await expect(openBackend('amd-smi', base())).rejects.toMatchObject({ code: 'unavailable' });
  });

  it('sim is opened on request', async () => {
    const { backend, reason } = await openBackend('sim', base());
    try {
      expect(reason).toBe('simulated GPUs requested');
      expect((await backend.listDevices()).every((d) => d.simulated)).toBe(true);
    } finally {
      await backend.close();
    }
  });
});
