import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  AmdSmiBackend,
  amdValue,
  parseAmdMetric,
  parseAmdStatic,
  parseRocmDevices,
  parseRocmMetrics,
  parseToolJson,
} from '../../../src/main/lab/gpu/amd-smi';
import { SUDO_PROMPT } from '../../../src/main/lab/gpu/cap-setter';
import { installShim, installSudo, makeShimDir, type ShimDir } from '../../helpers/gpu-shims';

const FIX = join(__dirname, '../../fixtures/amd');
const fixture = (name: string) => JSON.parse(readFileSync(join(FIX, name), 'utf8')) as unknown;

describe('amd-smi / rocm-smi JSON parsing', () => {
  it('reads numbers in every shape the tools print', () => {
    expect(amdValue(42)).toBe(42);
    expect(amdValue({ value: 612, unit: 'W' })).toBe(612);
    expect(amdValue('560 W')).toBe(560);
    expect(amdValue('(2090Mhz)')).toBe(2090);
    expect(amdValue('611.0')).toBe(611);
    expect(amdValue('N/A')).toBeNull();
    expect(amdValue({ value: 'N/A', unit: 'W' })).toBeNull();
    expect(amdValue(undefined)).toBeNull();
    expect(parseToolJson('WARNING: User is missing the following required groups: render, video\n[{"gpu": 0}]')).toEqual([{ gpu: 0 }]);
  });

  it('parses amd-smi static + list into devices (MI300X, list form)', () => {
    const notes: string[] = [];
    const devs = parseAmdStatic(fixture('amd-smi-static.json'), fixture('amd-smi-list.json'), notes);
    expect(devs).toHaveLength(2);
    expect(devs[0]).toMatchObject({
      id: 'amd-smi:0',
      index: 0,
      backend: 'amd-smi',
      kind: 'gpu',
      name: 'AMD Instinct MI300X',
      vendor: 'AMD',
      uuid: '5eff74a1-0000-1000-8041-a1b2c3d4e5f6',
      pci_bus_id: '0000:0c:00.0',
      driver: '6.8.5',
      vbios: '022.040.003.041.000001',
      limit_w: 750,
      min_limit_w: 0,
      max_limit_w: 750,
      default_limit_w: 750,
    });
    expect(devs[0]!.sensors.power_kinds).toEqual(['instant']); // MI300: socket power is a current reading
    expect(devs[1]).toMatchObject({ limit_w: 500, vbios: '113-M3000100-102', uuid: 'a6ff74a1-0000-1000-8097-0f1e2d3c4b5a' });
    expect(notes).toEqual([]);
  });

  it('parses the older string format (MI250X) and labels its socket power an average', () => {
    const devs = parseAmdStatic(fixture('amd-smi-static-mi250x.json'));
    expect(devs[0]).toMatchObject({ name: 'AMD INSTINCT MI250X', limit_w: 560, max_limit_w: 560, min_limit_w: null, uuid: null });
    expect(devs[0]!.sensors.power_kinds).toEqual(['average']);
    const m = parseAmdMetric(fixture('amd-smi-metric-mi250x.json'), new Map([[0, 'average']]));
    expect(m[0]!.sample).toMatchObject({ power_w: 371, power_kind: 'average', sm_clock_mhz: 1700, mem_clock_mhz: 1600, temp_c: 66, util_gpu: 87, util_mem: 23, mem_used_mb: 40211 });
    expect(m[0]!.sample.energy_mj).toBeCloseTo(1288734.29 * 1000, 0);
  });

  it('parses amd-smi metric (gpu_data form) with N/A fields as null plus a note', () => {
    const m = parseAmdMetric(fixture('amd-smi-metric.json'), new Map([[0, 'instant'], [1, 'instant']]));
    expect(m).toHaveLength(2);
    expect(m[0]!.sample).toMatchObject({ device_id: 'amd-smi:0', power_w: 612, power_kind: 'instant', sm_clock_mhz: 2089, mem_clock_mhz: 1300, temp_c: 78, util_gpu: 98, util_mem: 41, mem_used_mb: 150113, energy_mj: null });
    expect(m[0]!.notes).toEqual([]);
    expect(m[1]!.sample).toMatchObject({ power_w: null, temp_c: null, sm_clock_mhz: 132 });
    expect(m[1]!.notes).toEqual(['socket power: N/A', 'temperature: N/A']);
  });

  it('parses rocm-smi device and metric JSON', () => {
    const notes: string[] = [];
    const devs = parseRocmDevices(fixture('rocm-smi-devices.json'), notes);
    expect(devs).toHaveLength(2);
    expect(devs[0]).toMatchObject({ id: 'rocm-smi:0', backend: 'rocm-smi', name: 'AMD Instinct MI300X', uuid: '0x5eff74a1e5f60708', pci_bus_id: '0000:0C:00.0', driver: '6.8.5', vbios: '113-M3000100-102', limit_w: 750, min_limit_w: null, max_limit_w: null });
    expect(devs[1]).toMatchObject({ uuid: null, limit_w: null });
    expect(notes).toEqual(['rocm-smi: card1: no power cap reported']);
    const m = parseRocmMetrics(fixture('rocm-smi-metrics.json'));
    expect(m[0]!.sample).toMatchObject({ device_id: 'rocm-smi:0', power_w: 611, power_kind: 'instant', sm_clock_mhz: 2090, mem_clock_mhz: 1300, temp_c: 77, util_gpu: 98, util_mem: 76, limit_w: 750 });
    expect(m[0]!.sample.mem_used_mb).toBeCloseTo(157406355456 / 1048576, 0);
    expect(m[1]!.sample).toMatchObject({ power_w: null, power_kind: 'average', temp_c: null });
    expect(m[1]!.notes).toEqual(['power: N/A']);
  });
});

describe('AMD backend against recorded outputs', () => {
  let s: ShimDir;
  beforeEach(() => {
    s = makeShimDir({ FIX });
    installSudo(s);
  });
  afterEach(() => s.cleanup());

  const amdSmiShim = `case "$1" in
  static) if [ "$2" = "--limit" ]; then cat "$SHIM_DIR/limit.json" 2>/dev/null || cat "$FIX/amd-smi-static.json"; else cat "$FIX/amd-smi-static.json"; fi;;
  list) cat "$FIX/amd-smi-list.json";;
  metric) if [ "$2" = "--energy" ]; then cat "$FIX/amd-smi-energy.json"; else echo "WARNING: amd_smi not in render group"; cat "$FIX/amd-smi-metric.json"; fi;;
  set) printf '[{"gpu": %s, "limit": {"socket_power": {"value": %s, "unit": "W"}}}]' "$3" "$5" > "$SHIM_DIR/limit.json"; echo "GPU: $3"; echo "    POWERCAP: Successfully set power cap to $5 W";;
  *) echo "unexpected $*" >&2; exit 2;;
esac`;

  it('uses amd-smi: devices, background metric polling, energy counter, and set through sudo', async () => {
    installShim(s, 'amd-smi', amdSmiShim);
    const b = await AmdSmiBackend.open({ env: s.env, intervalMs: 20, privilege: 'sudo' });
    try {
      expect(b.name).toBe('amd-smi');
      const devs = await b.listDevices();
      expect(devs.map((d) => d.name)).toEqual(['AMD Instinct MI300X', 'AMD Instinct MI300X']);
      const samples = await b.sample([0, 1]);
      expect(samples[0]).toMatchObject({ device_id: 'amd-smi:0', power_w: 612, power_kind: 'instant', limit_w: 750 });
      expect(samples[1]!.power_w).toBeNull();
      expect(b.warnings).toEqual(expect.arrayContaining(['amd-smi: GPU 1: socket power: N/A; recorded as null']));
      expect(await b.readEnergyMj(0)).toBeCloseTo(7612345.5 * 1000, 0);
      const metric = s.calls().find((c) => c[0] === 'amd-smi' && c[1] === 'metric');
      expect(metric).toEqual(['amd-smi', 'metric', '--power', '--clock', '--temperature', '--usage', '--mem-usage', '--json']);
      const r = await b.setPowerLimitVerified(0, 400);
      expect(r.enforced_w).toBe(400);
      expect(s.calls().find((c) => c[0] === 'sudo')).toEqual(['sudo', '-n', '-p', SUDO_PROMPT, '--', 'amd-smi', 'set', '--gpu', '0', '--power-cap', '400']);
      await expect(b.setPowerLimit(0, 800)).rejects.toThrow(/outside the allowed range 0-750 W/);
    } finally {
      await b.close();
    }
  });

  it('falls back to rocm-smi when amd-smi is absent', async () => {
    installShim(
      s,
      'rocm-smi',
      `case " $* " in
  *" --showproductname "*) cat "$FIX/rocm-smi-devices.json";;
  *" --showenergycounter "*) cat "$FIX/rocm-smi-energy.json";;
  *" --showpower "*) cat "$FIX/rocm-smi-metrics.json";;
  *) echo "unexpected $*" >&2; exit 2;;
esac`,
    );
    const b = await AmdSmiBackend.open({ env: s.env, intervalMs: 20 });
    try {
      expect(b.name).toBe('rocm-smi');
      const devs = await b.listDevices();
      expect(devs[0]).toMatchObject({ id: 'rocm-smi:0', limit_w: 750 });
      const got = await b.sample([0]);
      expect(got[0]).toMatchObject({ power_w: 611, power_kind: 'instant' });
      expect(await b.readEnergyMj(0)).toBeCloseTo(7610523496548.8 / 1000, 0);
    } finally {
      await b.close();
    }
  });

  it('explains why when neither tool is there', async () => {
    await expect(AmdSmiBackend.open({ env: s.env })).rejects.toMatchObject({ code: 'unavailable', message: 'amd-smi: not on PATH; rocm-smi: not on PATH' });
  });
});
