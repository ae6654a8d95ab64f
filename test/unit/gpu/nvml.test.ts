import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BackendError } from '../../../src/main/lab/gpu/backend';
import { NvmlBackend } from '../../../src/main/lab/gpu/nvml';
import { BufferedSampler, createSampler } from '../../../src/main/lab/gpu/buffered-sampler';
import type { Sample } from '../../../src/shared/device';
import { windowEnergy } from '../../../src/core/analysis/energy';
import { findOnPath } from '../../../src/main/lab/gpu/tool-exec';

describe('NVML backend without NVML', () => {
  it('fails with a clean "unavailable" BackendError when the library is missing', async () => {
    const err = await NvmlBackend.open({ libPath: '/nonexistent/libnvidia-ml.so.1' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BackendError);
    expect((err as BackendError).code).toBe('unavailable');
    expect((err as BackendError).backend).toBe('nvml');
    expect((err as BackendError).message).toMatch(/nvml: \/nonexistent\/libnvidia-ml\.so\.1 not found/);
  });

  // Which of the two holds depends on the machine: the driver's /proc entry says which one this is.
  const hasDriver = existsSync('/proc/driver/nvidia/version');
  it.skipIf(hasDriver)('the default library name fails the same way on a machine without the NVIDIA driver (skipped where the driver is installed)', async () => {
    const err = await NvmlBackend.open().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BackendError);
    expect((err as BackendError).code).toBe('unavailable');
    expect((err as BackendError).message).toContain('libnvidia-ml.so.1');
  });

  it.runIf(hasDriver)('the default library name opens the installed driver and lists its GPUs (runs where the driver is installed)', async () => {
    const nvml = await NvmlBackend.open();
    try {
      expect((await nvml.listDevices()).length).toBeGreaterThan(0);
    } finally {
      await nvml.close();
    }
  });
});

// A stand-in libnvidia-ml built from test/fixtures/fake-nvml/fake_nvml.c exercises the real FFI path
// (struct layouts, out-buffers, error codes). Skipped where no C compiler exists.
const cc = findOnPath('cc') ?? findOnPath('gcc');
describe.skipIf(!cc)('NVML backend against a stand-in libnvidia-ml (skipped where no C compiler exists)', () => {
  let dir = '';
  let lib = '';
  const saved = { ...process.env };
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'caplab-fake-nvml-'));
    lib = join(dir, 'libnvidia-ml.so.1');
    execFileSync(cc!, ['-shared', '-fPIC', '-O1', '-o', lib, join(__dirname, '../../fixtures/fake-nvml/fake_nvml.c')]);
  });
  afterAll(() => {
    for (const k of ['FAKE_NVML_COUNT', 'FAKE_NVML_LOST', 'FAKE_NVML_SET_NOPERM', 'FAKE_NVML_ENFORCE_IGNORE', 'FAKE_NVML_INIT_FAIL']) {
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it('lists devices with limits, identity and measured sensor facts', async () => {
    const b = await NvmlBackend.open({ libPath: lib, sensorCheckMs: 400 });
    try {
      const devs = await b.listDevices();
      expect(devs).toHaveLength(2);
      const d = devs[0]!;
      expect(d).toMatchObject({
        id: 'nvml:0',
        backend: 'nvml',
        kind: 'gpu',
        name: 'Fake H200 0',
        vendor: 'NVIDIA',
        simulated: false,
        uuid: 'GPU-fake-0000',
        pci_bus_id: '00000000:01:00.0',
        driver: '580.00.01',
        vbios: '96.00.AF.00.01',
        limit_w: 700,
        enforced_limit_w: 700,
        min_limit_w: 200,
        max_limit_w: 700,
        default_limit_w: 700,
      });
      expect(d.sensors.power_kinds).toEqual(['instant', 'average']);
      expect(d.sensors.energy_counter).toBe(true);
      expect(d.sensors.energy_counter_check).toBe('ok');
      expect(d.sensors.update_period_ms).toBeGreaterThan(14);
      expect(d.sensors.update_period_ms).toBeLessThan(30);
    } finally {
      await b.close();
    }
  });

  it('samples instant power with its kind and reads the energy counter only on request', async () => {
    const b = await NvmlBackend.open({ libPath: lib, checkSensors: false });
    try {
      const s = await b.sample([0, 1]);
      expect(s).toHaveLength(2);
      expect(s[0]).toMatchObject({ device_id: 'nvml:0', power_kind: 'instant', power_avg_w: 120, energy_mj: null, sm_clock_mhz: 1980, mem_clock_mhz: 3201, temp_c: 40, util_gpu: 97, util_mem: 40, mem_used_mb: 1024, limit_w: 700, throttle_reasons: 0 });
      expect([100, 110, 120, 130, 140]).toContain(s[0]!.power_w);
      expect(Math.abs(s[0]!.t - Date.now() / 1000)).toBeLessThan(1);
      const e0 = await b.readEnergyMj(0);
      await new Promise((r) => setTimeout(r, 200));
      const e1 = await b.readEnergyMj(0);
      expect(e1! - e0!).toBeGreaterThan(0.15 * 100_000 * 0.8); // ~120 W x 0.2 s = 24 J
      expect(e1! - e0!).toBeLessThan(0.4 * 140_000);
    } finally {
      await b.close();
    }
  });

  it('reads slowly changing quantities once per slowEveryMs and holds them in between', async () => {
    const b = await NvmlBackend.open({ libPath: lib, checkSensors: false, slowEveryMs: 300 });
    try {
      const [first] = await b.sample([0]);
      const [second] = await b.sample([0]);
      expect(first).toMatchObject({ power_avg_w: 120, temp_c: 40, util_gpu: 97, mem_used_mb: 1024, limit_w: 700 });
      expect(second).toMatchObject({ power_avg_w: null, temp_c: 40, util_gpu: 97, mem_used_mb: 1024, limit_w: 700, power_kind: 'instant', sm_clock_mhz: 1980 });
      await new Promise((r) => setTimeout(r, 320));
      const [third] = await b.sample([0]);
      expect(third!.power_avg_w).toBe(120);
      const devs = await b.listDevices();
      expect(devs[0]!.sensors.note).toMatch(/every 300 ms \(held between\)/);
    } finally {
      await b.close();
    }
  });

  it('leaves a GPU lost mid-run out of samples, reports it once and keeps sampling the others', async () => {
    const warnings: string[] = [];
    const b = await NvmlBackend.open({ libPath: lib, checkSensors: false, onWarning: (m) => warnings.push(m) });
    try {
      expect(await b.sample([0, 1])).toHaveLength(2);
      process.env.FAKE_NVML_LOST = '1';
      const s = await b.sample([0, 1]);
      expect(s.map((x) => x.device_id)).toEqual(['nvml:0']);
      expect(await b.sample([0, 1])).toHaveLength(1);
      expect(warnings.filter((w) => /lost/.test(w))).toHaveLength(1);
      expect(warnings[0]).toMatch(/GPU 1 .*lost mid-run/);
      expect(await b.readEnergyMj(1)).toBeNull();
      await expect(b.setPowerLimit(1, 300)).rejects.toMatchObject({ code: 'no-device' });
    } finally {
      delete process.env.FAKE_NVML_LOST;
      await b.close();
    }
  });

  it('sets a limit through NVML as root and verifies the enforced limit', async () => {
    const b = await NvmlBackend.open({ libPath: lib, checkSensors: false, privilege: 'root' });
    try {
      const r = await b.setPowerLimitVerified(0, 450);
      expect(r).toMatchObject({ requested_w: 450, enforced_w: 450, via: 'direct' });
      expect(await b.getPowerLimit(0)).toBe(450);
      expect((await b.sample([0]))[0]!.throttle_reasons).toBe(0x4);
      await b.setPowerLimit(0, 700);
    } finally {
      await b.close();
    }
  });

  it('rejects out-of-range limits before calling NVML, maps NO_PERMISSION, and fails a cap that is not enforced', async () => {
    const b = await NvmlBackend.open({ libPath: lib, checkSensors: false, privilege: 'root' });
    try {
      await expect(b.setPowerLimit(0, 150)).rejects.toThrow(/outside the allowed range 200-700 W/);
      await expect(b.setPowerLimit(0, 150)).rejects.toMatchObject({ code: 'out-of-range' });
      process.env.FAKE_NVML_SET_NOPERM = '1';
      await expect(b.setPowerLimit(0, 300)).rejects.toMatchObject({ code: 'permission' });
      delete process.env.FAKE_NVML_SET_NOPERM;
      process.env.FAKE_NVML_ENFORCE_IGNORE = '1';
      await expect(b.setPowerLimit(0, 300)).rejects.toThrow(/enforces 700 W after setting 300 W/);
    } finally {
      delete process.env.FAKE_NVML_SET_NOPERM;
      delete process.env.FAKE_NVML_ENFORCE_IGNORE;
      await b.close();
    }
  });

  it('maps init failures and zero GPUs to clear errors', async () => {
    process.env.FAKE_NVML_INIT_FAIL = '9';
    const e1 = await NvmlBackend.open({ libPath: lib }).catch((e: unknown) => e);
    delete process.env.FAKE_NVML_INIT_FAIL;
    expect(e1).toMatchObject({ code: 'unavailable' });
    expect((e1 as Error).message).toMatch(/Driver Not Loaded/);
    process.env.FAKE_NVML_COUNT = '0';
    const e2 = await NvmlBackend.open({ libPath: lib }).catch((e: unknown) => e);
    delete process.env.FAKE_NVML_COUNT;
    expect(e2).toMatchObject({ code: 'no-device' });
  });
  it('buffered sampling: one wake per batch gives driver-timestamped readings about one per interval, every field, energy equal to the counter', async () => {
    process.env.FAKE_NVML_COUNT = '2';
    const b = await NvmlBackend.open({ libPath: lib, checkSensors: false });
    try {
      const got: Sample[] = [];
      const sampler = new BufferedSampler({ backend: b, indexes: [0, 1], intervalMs: 100, batchMs: 300, onSamples: (s) => got.push(...s) });
      sampler.start();
      await new Promise((r) => setTimeout(r, 1600));
      sampler.stop();
      expect(sampler.stats.wakes).toBeLessThan(12); // ~7 wakes for both GPUs, not 16 ticks
      const gpu0 = got.filter((s) => s.device_id === 'nvml:0');
      expect(gpu0.length).toBeGreaterThan(10);
      expect(Math.abs(got.filter((s) => s.device_id === 'nvml:1').length - gpu0.length)).toBeLessThanOrEqual(1);
      const gaps = gpu0.slice(1).map((s, i) => s.t - gpu0[i]!.t);
      expect(Math.min(...gaps)).toBeGreaterThan(0.085); // thinned to the interval, never duplicated
      expect(Math.max(...gaps)).toBeLessThan(0.125); // no reading lost between wakes
      expect(gpu0[0]).toMatchObject({ power_kind: 'instant', sm_clock_mhz: 1980, mem_clock_mhz: 3201, temp_c: 40, util_gpu: 97, limit_w: 700, throttle_reasons: 0 });
      expect(gpu0.some((s) => s.power_avg_w !== null)).toBe(true);

      // The fake's power cycles 100-140 W every 100 ms, so 100 ms readings alias: check energy at the buffer's grain.
      const all: Sample[] = [];
      const fine = new BufferedSampler({ backend: b, indexes: [0], intervalMs: 10, batchMs: 300, onSamples: (s) => all.push(...s) });
      fine.start();
      const f0 = await b.readEnergyMj(0);
      const ft0 = b.now();
      await new Promise((r) => setTimeout(r, 1200));
      const f1 = await b.readEnergyMj(0);
      const ft1 = b.now();
      fine.stop();
      const counterJ = (f1! - f0!) / 1000;
      const e = windowEnergy(all, { start: ft0, end: ft1 }, { prefer: ['instant'] });
      expect(Math.abs(e.energy_j! - counterJ) / counterJ).toBeLessThan(0.05);
    } finally {
      await b.close();
    }
  });

  it('a plan asks for polling or buffering; buffering needs a backend with a driver buffer, running in real time', async () => {
    const b = await NvmlBackend.open({ libPath: lib, checkSensors: false });
    try {
      const base = { backend: b, indexes: [0], intervalMs: 100, onSamples: () => {} };
      expect(createSampler({ ...base, mode: 'auto' }).buffered).toBe(true);
      expect(createSampler({ ...base, mode: 'poll' }).buffered).toBe(false);
      expect(createSampler({ ...base, mode: 'auto', timeScale: 50 }).buffered).toBe(false);
    } finally {
      await b.close();
    }
  });

  it('the buffered sampler runs periodic chores on its own wake (no wake-up of their own); the polled one offers none', async () => {
    const b = await NvmlBackend.open({ libPath: lib, checkSensors: false });
    try {
      const wakes: number[] = [];
      let readings = 0;
      const sampler = new BufferedSampler({ backend: b, indexes: [0], intervalMs: 100, batchMs: 200, onSamples: (s) => (readings += s.length) });
      const stop = sampler.onWake(() => wakes.push(readings));
      sampler.start();
      await new Promise((r) => setTimeout(r, 900));
      stop();
      const after = wakes.length;
      await new Promise((r) => setTimeout(r, 500));
      sampler.stop();
      expect(after).toBeGreaterThanOrEqual(2);
      expect(wakes).toHaveLength(after); // unsubscribed: no more calls
      expect(sampler.stats.wakes).toBeGreaterThan(after); // one wake per batch, shared: the chore adds none
      expect(wakes[0]).toBeGreaterThan(0); // runs after the wake's drain
      const polled = createSampler({ backend: b, indexes: [0], intervalMs: 100, mode: 'poll', onSamples: () => {} });
      expect(polled.onWake(() => {})).toBeNull();
    } finally {
      await b.close();
    }
  });
});
