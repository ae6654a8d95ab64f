import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  LIST_FIELDS,
  NvidiaSmiBackend,
  parseDeviceList,
  parseHelpQueryGpu,
  parseNumber,
  parseNvTimestamp,
  parseStreamRow,
  streamLayout,
} from '../../../src/main/lab/gpu/nvidia-smi';
import { SUDO_PROMPT } from '../../../src/main/lab/gpu/cap-setter';
import { installNvidiaSmi, installSudo, makeShimDir, type ShimDir } from '../../helpers/gpu-shims';

describe('nvidia-smi CSV parsing', () => {
  it('turns [N/A], [Not Supported], [Unknown Error] into null with a note', () => {
    expect(parseNumber('312.45', 'power.draw')).toEqual({ value: 312.45, note: null });
    expect(parseNumber('[N/A]', 'power.draw')).toEqual({ value: null, note: 'power.draw: N/A' });
    expect(parseNumber('[Not Supported]', 'clocks.sm')).toEqual({ value: null, note: 'clocks.sm: Not Supported' });
    expect(parseNumber('[Unknown Error]', 'x')).toEqual({ value: null, note: 'x: Unknown Error' });
    expect(parseNumber('N/A', 'x').value).toBeNull();
    expect(parseNumber('[Insufficient Permissions]', 'x').value).toBeNull();
    expect(parseNumber('', 'x')).toEqual({ value: null, note: 'x: empty' });
    expect(parseNumber('garbage', 'x').note).toMatch(/unparsable "garbage"/);
    expect(parseNumber('0x0000000000000004', 'reasons').value).toBe(4);
    expect(parseNumber('700.00 W', 'limit').value).toBe(700);
  });

  it('parses the device list query, keeping [N/A] limits as null', () => {
    const notes: string[] = [];
    const devs = parseDeviceList(
      [
        '0, NVIDIA H200, GPU-aaaa, 00000000:01:00.0, 580.159.04, 96.00.AF.00.01, 700.00, 700.00, 200.00, 700.00, 700.00',
        '1, NVIDIA H200, GPU-bbbb, 00000000:02:00.0, 580.159.04, [N/A], 450.00, 450.00, [N/A], [Not Supported], 700.00',
        'garbage line',
        '',
      ].join('\n'),
      notes,
    );
    expect(LIST_FIELDS).toHaveLength(11);
    expect(devs).toHaveLength(2);
    expect(devs[0]).toMatchObject({ id: 'nvidia-smi:0', index: 0, name: 'NVIDIA H200', uuid: 'GPU-aaaa', pci_bus_id: '00000000:01:00.0', driver: '580.159.04', vbios: '96.00.AF.00.01', limit_w: 700, enforced_limit_w: 700, min_limit_w: 200, max_limit_w: 700, default_limit_w: 700, vendor: 'NVIDIA', kind: 'gpu', simulated: false });
    expect(devs[1]).toMatchObject({ vbios: null, limit_w: 450, min_limit_w: null, max_limit_w: null });
    expect(notes).toEqual(expect.arrayContaining(['nvidia-smi: GPU 1: power.min_limit: N/A', 'nvidia-smi: GPU 1: power.max_limit: Not Supported']));
    expect(notes.some((n) => /skipped a device row/.test(n))).toBe(true);
  });

  it('parses stream rows with instant and average power, and older drivers without the instant field', () => {
    const layout = streamLayout(null);
    expect(layout.fields).toEqual([
      'timestamp', 'index', 'power.draw.instant', 'power.draw.average', 'clocks.sm', 'clocks.mem', 'temperature.gpu',
      'utilization.gpu', 'utilization.memory', 'memory.used', 'enforced.power.limit', 'clocks_event_reasons.active',
    ]);
    const row = parseStreamRow('2026/11/30 09:45:57.673, 0, 312.45, 298.10, 1980, 3201, 61, 97, 43, 81234, 700.00, 0x0000000000000004', layout, 1);
    expect(row!.index).toBe(0);
    expect(row!.sample).toMatchObject({ device_id: 'nvidia-smi:0', power_w: 312.45, power_kind: 'instant', power_avg_w: 298.1, sm_clock_mhz: 1980, mem_clock_mhz: 3201, temp_c: 61, util_gpu: 97, util_mem: 43, mem_used_mb: 81234, limit_w: 700, throttle_reasons: 4, energy_mj: null });
    expect(row!.sample.t).toBeCloseTo(new Date(2026, 10, 30, 9, 45, 57, 673).getTime() / 1000, 3);
    const na = parseStreamRow('2026/11/30 09:45:57.673, 1, [N/A], [Not Supported], 345, 3201, 33, 0, 0, 1, 700.00, [Unknown Error]', layout, 1);
    expect(na!.sample).toMatchObject({ power_w: null, power_avg_w: null, throttle_reasons: null, sm_clock_mhz: 345 });
    expect(na!.notes).toEqual(['power.draw.instant: N/A', 'power.draw.average: Not Supported', 'clocks_event_reasons.active: Unknown Error']);
    expect(parseStreamRow('short, row', layout, 1)).toBeNull();

    const old = streamLayout(new Set(['timestamp', 'index', 'power.draw', 'clocks_throttle_reasons.active']));
    expect(old.instant).toBeNull();
    expect(old.average).toBe('power.draw');
    expect(old.reasons).toBe('clocks_throttle_reasons.active');
    const r = parseStreamRow('garbage-time, 0, 250.5, 1410, 1215, 55, 99, 60, 30000, 400.00, 0x0000000000000001', old, 42);
    expect(r!.sample).toMatchObject({ power_w: 250.5, power_kind: 'average', power_avg_w: 250.5, t: 42, throttle_reasons: 1 });
  });

  it('reads field names from --help-query-gpu and timestamps in local time', () => {
    const known = parseHelpQueryGpu('"timestamp"\nThe timestamp...\n"power.draw.instant"\n"name" or "gpu_name"\n');
    expect([...known]).toEqual(['timestamp', 'power.draw.instant', 'name', 'gpu_name']);
    expect(parseNvTimestamp('2026/01/02 03:04:05.6')).toBe(new Date(2026, 0, 2, 3, 4, 5, 600).getTime() / 1000);
    expect(parseNvTimestamp('nonsense')).toBeNull();
  });
});

describe('nvidia-smi backend against a shim', () => {
  let s: ShimDir;
  beforeEach(() => {
    s = makeShimDir();
    installNvidiaSmi(s);
    installSudo(s);
  });
  afterEach(() => s.cleanup());

  it('lists GPUs, samples through ONE long-running -lms child, and returns the latest row per GPU', async () => {
    const warnings: string[] = [];
    const b = await NvidiaSmiBackend.open({ env: s.env, intervalMs: 50, onWarning: (w) => warnings.push(w) });
    try {
      const devs = await b.listDevices();
      expect(devs.map((d) => d.id)).toEqual(['nvidia-smi:0', 'nvidia-smi:1']);
      expect(devs[0]!.sensors).toMatchObject({ power_kinds: ['instant', 'average'], energy_counter: false, energy_counter_check: 'absent' });
      const first = await b.sample([0, 1]);
      expect(first.map((x) => x.device_id)).toEqual(['nvidia-smi:0', 'nvidia-smi:1']);
      expect(first[0]).toMatchObject({ power_w: 312.45, power_kind: 'instant', throttle_reasons: 4 });
      expect(first[1]).toMatchObject({ power_w: null, power_avg_w: null });
      await new Promise((r) => setTimeout(r, 300));
      const again = await b.sample([0]);
      expect(again[0]!.t).toBeGreaterThan(first[0]!.t);
      const streams = s.calls().filter((c) => c.includes('-lms'));
      expect(streams).toHaveLength(1);
      expect(streams[0]).toEqual(['nvidia-smi', `--query-gpu=${b['layout'].fields.join(',')}`, '--format=csv,noheader,nounits', '-lms', '50']);
      expect(warnings).toEqual(expect.arrayContaining(['nvidia-smi: GPU 1: power.draw.instant: N/A; recorded as null', 'nvidia-smi: GPU 1: power.min_limit: N/A']));
      expect(await b.readEnergyMj(0)).toBeNull();
    } finally {
      await b.close();
    }
  });

  it('leaves a GPU that stops reporting out of samples, says so, and keeps sampling the others', async () => {
    const warnings: string[] = [];
    const b = await NvidiaSmiBackend.open({ env: s.env, intervalMs: 50, staleMs: 300, onWarning: (w) => warnings.push(w) });
    try {
      expect(await b.sample([0, 1])).toHaveLength(2);
      writeFileSync(join(s.dir, 'drop1'), '');
      await new Promise((r) => setTimeout(r, 600));
      const got = await b.sample([0, 1]);
      expect(got.map((x) => x.device_id)).toEqual(['nvidia-smi:0']);
      expect(warnings.some((w) => /GPU 1 stopped reporting .* left out of samples/.test(w))).toBe(true);
    } finally {
      await b.close();
    }
  });

  it('sets a limit via sudo nvidia-smi -i N -pl W and reads back enforced.power.limit', async () => {
    const b = await NvidiaSmiBackend.open({ env: s.env, privilege: 'sudo' });
    try {
      const r = await b.setPowerLimitVerified(0, 350);
      expect(r).toMatchObject({ enforced_w: 350, via: 'sudo' });
      expect(s.calls().find((c) => c[0] === 'sudo')).toEqual(['sudo', '-n', '-p', SUDO_PROMPT, '--', 'nvidia-smi', '-i', '0', '-pl', '350']);
      expect(await b.getPowerLimit(0)).toBe(350);
      await expect(b.setPowerLimit(0, 100)).rejects.toThrow(/outside the allowed range 200-700 W for GPU 0 \(NVIDIA H200\)/);
    } finally {
      await b.close();
    }
  });

  it('says "no-device" when nvidia-smi finds no GPU and "unavailable" when it is missing', async () => {
    await expect(NvidiaSmiBackend.open({ env: { ...s.env, SHIM_NO_GPU: '1' } })).rejects.toMatchObject({ code: 'no-device' });
    await expect(NvidiaSmiBackend.open({ env: { PATH: '/nonexistent' } })).rejects.toMatchObject({ code: 'unavailable', message: 'nvidia-smi: not on PATH' });
  });
});
