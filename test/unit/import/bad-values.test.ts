// Values no store can hold fail the file at their line; physically impossible readings are skipped with their
// reason and lines; readings that go back in time are counted (issue #32, items 3 and 4).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseAll } from '../../../src/core/import/collect';
import { ImportError } from '../../../src/core/import';
import { reorderWarning } from '../../../src/core/import/report';
import { rowProblem, STORABLE } from '../../../src/core/import/plausible';
import { CHANNELS } from '../../../src/core/import/batch';
import type { ImportFormat } from '../../../src/shared/dataset';

const fx = (name: string) => readFileSync(`test/fixtures/import/${name}`, 'utf8');
const opts = { file: 'f', zone: 'UTC' };
const thrown = (format: ImportFormat, text: string): ImportError => {
  try {
    parseAll(format, text, opts);
  } catch (e) {
    if (e instanceof ImportError) return e;
    throw e;
  }
  throw new Error('parsed without an error');
};

describe('values the store cannot hold fail the file at their line', () => {
  const smi = fx('nvidia-smi-seed.csv');
  const cases: [string, ImportFormat, string, RegExp][] = [
    ['a year-9999 nvidia-smi timestamp', 'nvidia-smi', smi.replace('2026/11/30 08:45:57.774', '9999/11/30 08:45:57.774'), /^f:4: timestamp 9999-11-30T08:45:57\.774Z is outside the range the store holds \(1898-\d\d-\d\d to 2041-\d\d-\d\d\)$/],
    ['1e308 W in nvidia-smi', 'nvidia-smi', smi.replace('612.45', '1e308'), /^f:2: power 1e\+308 W is beyond what the store holds/],
    ['a year-9999 WattAMeter timestamp', 'wattameter', fx('wattameter-node.log').replace('2026-11-30_08:45:57.773412', '9999-11-30_08:45:57.773412'), /^f:3: timestamp 9999-11-30T08:45:57\.773Z is outside/],
    ['a Prometheus timestamp of 1e300', 'prometheus', fx('prometheus-dcgm.json').replace('[1796032830,"615.1"]', '[1e300,"615.1"]'), /^f: series 1 \(DCGM_FI_DEV_POWER_USAGE\), point 2: timestamp 1e\+300 s is outside/],
    ['a Prometheus timestamp of -1e12', 'prometheus', fx('prometheus-dcgm.json').replace('[1796032860,"1852000000"]', '[-1e12,"1852000000"]'), /^f: series 2 \(DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION\), point 3: timestamp -1000000000000 s is outside/],
    ['Zeus energy Infinity', 'zeus', fx('zeus-windows.csv').replace('37140.0', 'Infinity'), /^f:3: power \(from an energy counter\) Infinity W is beyond/],
    ['Zeus energy 1e309', 'zeus', fx('zeus-windows.csv').replace('37140.0', '1e309'), /^f:3: power \(from an energy counter\) Infinity W is beyond/],
    ['facility power 99999999999999999999', 'facility-csv', fx('facility-profile.csv').replace('2392004.1', '99999999999999999999'), /^f:3: power 100000000000000000000 W is beyond/],
    ['facility power Infinity', 'facility-csv', fx('facility-profile.csv').replace('2392004.1', 'Infinity'), /^f:3: power Infinity W is beyond/],
  ];
  it.each(cases)('%s', (_, format, text, message) => {
    expect(thrown(format, text).message).toMatch(message);
  });

  it('takes its limits from the store: 2^51 quanta of each field', () => {
    // t is kept in µs, power in mW: the store ends in May 2041 and at 2.25 TW.
    expect(new Date(STORABLE.t * 1000).toISOString()).toMatch(/^2041-05/);
    expect(Math.round(STORABLE.power_avg_w * 1000)).toBeLessThan(2 ** 51);
    expect(STORABLE.power_avg_w).toBeGreaterThan(2 ** 51 / 1000 - 2);
    const at = (ch: string, v: number) => CHANNELS.map((c) => Float64Array.of(c === ch ? v : NaN));
    expect(rowProblem(2.3e9, at('temp_c', 40), 0, 'gpu', 'wall')).toMatchObject({ fatal: true });
    expect(rowProblem(1.8e9, at('energy_mj', 2 ** 52), 0, 'gpu', 'wall')).toMatchObject({ fatal: true });
    expect(rowProblem(1.8e9, at('energy_mj', 2 ** 50), 0, 'gpu', 'wall')).toBeNull();
    // Absolute zero itself is impossible, a degree above it is a (cold) reading.
    expect(rowProblem(1.8e9, at('temp_c', -273.15), 0, 'gpu', 'wall')).toMatchObject({ fatal: false });
    expect(rowProblem(1.8e9, at('temp_c', -272.15), 0, 'gpu', 'wall')).toBeNull();
  });
});

describe('physically impossible readings are skipped by reason with their lines', () => {
  it('nvidia-smi: -612.45 W, 99,999,999 W and -300 °C are skipped, the rest kept', () => {
    const lines = fx('nvidia-smi-seed.csv').trimEnd().split('\n');
    lines[1] = lines[1]!.replace('612.45', '-612.45');
    lines[3] = lines[3]!.replace('615.10', '99999999');
    lines[4] = lines[4]!.replace(/, 58$/, ', -300');
    const r = parseAll('nvidia-smi', lines.join('\n') + '\n', opts);
    expect(r.rows).toHaveLength(3);
    expect(r.report.rows_read).toBe(3);
    expect(r.report.rows_skipped).toBe(3);
    expect(r.report.skipped).toEqual([
      { reason: 'impossible power: below 0 W', count: 1, lines: [2] },
      { reason: 'impossible power: above 10000 W for a gpu', count: 1, lines: [4] },
      { reason: 'impossible temperature: at or below -273.15 °C', count: 1, lines: [5] },
    ]);
    expect(Math.max(...r.rows.map((x) => x.values.power_avg_w ?? 0))).toBeLessThan(700);
  });

  it('bounds power by what the device is: 99,999,999 W is a facility, not a GPU', () => {
    const r = parseAll('facility-csv', fx('facility-profile.csv').replace('2392004.1', '99999999'), opts);
    expect(r.report.rows_skipped).toBe(0);
    const neg = parseAll('facility-csv', fx('facility-profile.csv').replace('2392004.1', '-5'), opts);
    expect(neg.report.skipped).toEqual([{ reason: 'impossible power: below 0 W', count: 1, lines: [3] }]);
  });

  it.each<[string, ImportFormat, string, string, number]>([
    ['WattAMeter utilisation over 100 %', 'wattameter', fx('wattameter-node.log').replace(' 41 87 ', ' 41 870 '), 'impossible utilisation: above 100 %', 3],
    ['rocm_smi.py junction temperature over 500 °C', 'hpcai-rocm-smi', fx('rocm_smi_gpu_usage.csv').replace(',0,41.000', ',0,541.000').replace(/[^\n]+$/, ''), 'impossible temperature: above 500 °C', 3],
    ['dcgmi dmon negative SM clock', 'dcgm-dmon', fx('dcgmi-dmon.txt').replace('1965   100', '-1965  100'), 'impossible SM clock: below 0 MHz', 6],
    ['Zeus negative window energy', 'zeus', fx('zeus-windows.csv').replace('3060.0', '-3060.0'), 'impossible power (from an energy counter): below 0 W', 4],
    ['CodeCarbon negative GPU power', 'codecarbon', fx('codecarbon-emissions.csv').replace(',601.4,', ',-601.4,'), 'impossible power (from an energy counter): below 0 W', 3],
  ])('%s', (_, format, text, reason, line) => {
    const r = parseAll(format, text, opts);
    expect(r.report.skipped).toEqual([{ reason, count: 1, lines: [line] }]);
  });

  it('a skipped Zeus window does not count in its segment energy', () => {
    const r = parseAll('zeus', fx('zeus-windows.csv').replace('3060.0', '-3060.0'), opts);
    expect(r.segments[2]!.energy_j).toBe(2958);
  });
});

describe('readings that go back in time', () => {
  it('are counted per device with their lines and warned about; interleaved devices are not', () => {
    const lines = fx('nvidia-smi-seed.csv').trimEnd().split('\n');
    // GPU 0's third reading moved before its second; GPU 1 stays in order.
    const r = parseAll('nvidia-smi', [lines[0], lines[1], lines[2], lines[5], lines[4], lines[3], lines[6]].join('\n') + '\n', opts);
    expect(r.report.reordered).toEqual({ count: 1, lines: [6] });
    expect(reorderWarning(r.report)).toBe("1 reading(s) go back in time from their device's previous one (line 6): they are stored in time order");
    expect(reorderWarning(parseAll('nvidia-smi', fx('nvidia-smi-seed.csv'), opts).report)).toBeNull();
  });
});

describe('messages quote values cut to 200 characters', () => {
  it('a 10,000-character column name is quoted cut, with its length', () => {
    const name = 'x'.repeat(10_000);
    const r = parseAll('nvidia-smi', `timestamp, ${name}, power.draw [W]\n2026/11/30 08:45:57.673, 1, 250\n`, opts);
    expect(r.report.warnings).toEqual([`column "${'x'.repeat(200)}... (10000 characters)" is not imported`]);
  });
});
