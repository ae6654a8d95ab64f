import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseAll } from '../../../src/core/import/collect';
import { detectFormat, ImportError } from '../../../src/core/import';

const fx = (name: string) => readFileSync(`test/fixtures/import/${name}`, 'utf8');
const utc = (iso: string) => Date.parse(iso) / 1000;

describe('nvidia-smi CSV importer', () => {
  it('reads the seed paper query (csv,nounits): two GPUs interleaved, [N/A] missing, power.draw labelled average', () => {
    const r = parseAll('nvidia-smi', fx('nvidia-smi-seed.csv'), { file: 'seed.csv', zone: 'UTC' });
    expect(r.rows).toHaveLength(6);
    expect(r.report.devices.map((d) => [d.key, d.index, d.name, d.rows])).toEqual([
      ['GPU-2f0e6a4c-1b2d-4c6e-8f10-0a1b2c3d4e5f', 0, 'NVIDIA H100 80GB HBM3', 3],
      ['GPU-7a9b8c7d-6e5f-4a3b-9c2d-1e0f9a8b7c6d', 1, 'NVIDIA H100 80GB HBM3', 3],
    ]);
    expect(r.rows[0]!.t).toBeCloseTo(utc('2026-11-30T08:45:57.673Z'), 6);
    expect(r.rows[0]!.values).toEqual({ power_avg_w: 612.45, sm_clock_mhz: 1980, mem_clock_mhz: 2619, util_gpu: 100, temp_c: 61 });
    expect(r.rows[5]!.values.power_avg_w).toBeUndefined();
    expect(r.report.columns.find((c) => c.source === 'power.draw')).toMatchObject({ channel: 'power_avg_w', sensor_kind: 'average', unit: 'W' });
    expect(r.report.warnings.join(' ')).toMatch(/1 cell\(s\) were \[N\/A\]/);
    expect(r.report.t_end! - r.report.t_start!).toBeCloseTo(0.205, 6);
  });

  it('reads csv with units in every cell, instant vs average power, and a zone across a DST change', () => {
    const r = parseAll('nvidia-smi', fx('nvidia-smi-units.csv'), { file: 'u.csv', zone: 'Europe/Berlin' });
    expect(r.rows).toHaveLength(4);
    // 2026-03-29 02:00 does not exist in Berlin (clocks jump 02:00 -> 03:00); 01:59:59.9 is CET (UTC+1).
    expect(r.rows[0]!.t).toBeCloseTo(utc('2026-03-29T00:59:59.900Z'), 6);
    expect(r.rows[3]!.values).toMatchObject({ power_avg_w: 388.9, power_instant_w: 640.5, limit_w: 700, sm_clock_mhz: 1980, mem_used_mb: 20480, util_mem: 47 });
    expect(r.rows[2]!.values.power_avg_w).toBeUndefined();
    const kinds = Object.fromEntries(r.report.columns.map((c) => [c.source, c.sensor_kind]));
    expect(kinds).toMatchObject({ 'power.draw.average': 'average', 'power.draw.instant': 'instant' });
  });

  it('reads csv,noheader with the field list, and asks for it without one', () => {
    const fields = ['timestamp', 'index', 'power.draw', 'clocks.sm', 'temperature.gpu'];
    const r = parseAll('nvidia-smi', fx('nvidia-smi-noheader.csv'), { file: 'n.csv', zone: 'UTC', fields });
    expect(r.rows).toHaveLength(4);
    expect(r.report.devices.map((d) => d.key)).toEqual(['gpu:0', 'gpu:1']);
    expect(r.rows[3]!.values).toEqual({ power_avg_w: 601.37, sm_clock_mhz: 1965, temp_c: 58 });
    expect(() => parseAll('nvidia-smi', fx('nvidia-smi-noheader.csv'), { file: 'n.csv', zone: 'UTC' })).toThrow(/n\.csv:1: no nvidia-smi header.*--fields/);
  });

  it('gives the same rows whatever the chunking (a line split across chunks)', () => {
    const text = fx('nvidia-smi-seed.csv');
    const whole = parseAll('nvidia-smi', text, { file: 'a', zone: 'UTC' }).rows;
    const chunks = text.match(/[\s\S]{1,7}/g)!;
    expect(parseAll('nvidia-smi', chunks, { file: 'a', zone: 'UTC' }).rows).toEqual(whole);
  });

  it('names file and line for bad input: wrong delimiter, truncated rows, garbage, empty file', () => {
    expect(() => parseAll('nvidia-smi', 'timestamp; index; power.draw [W]\n', { file: 'semi.csv', zone: 'UTC' })).toThrow(/semi\.csv:1: wrong delimiter/);
    expect(() => parseAll('nvidia-smi', '', { file: 'empty.csv', zone: 'UTC' })).toThrow(ImportError);
    const text = fx('nvidia-smi-seed.csv').split('\n');
    const bad = [...text.slice(0, 3), '2026/11/30 08:45:57.774, 0, NVIDIA H100', '\u0000\u00ff garbage ,,,', 'notatime, 0, x, y, z, 1, 2, 3, 4, 5', ...text.slice(3)].join('\n');
    const r = parseAll('nvidia-smi', bad, { file: 'bad.csv', zone: 'UTC' });
    expect(r.rows).toHaveLength(6);
    expect(r.report.rows_skipped).toBe(3);
    expect(r.report.skipped.map((s) => [s.reason, s.lines])).toEqual([
      ['truncated row: 3 of 10 fields', [4]],
      ['unreadable timestamp', [5, 6]],
    ]);
  });

  it('skips a row whose unit disagrees with the header, and converts a header in other units', () => {
    const text = 'timestamp, index, power.draw [W]\n2026/11/30 08:45:57.673, 0, 250.5 W\n2026/11/30 08:45:57.773, 0, 250500 mW\n2026/11/30 08:45:57.873, 0, 3 MHz\n';
    const r = parseAll('nvidia-smi', text, { file: 'u.csv', zone: 'UTC' });
    expect(r.rows.map((x) => x.values.power_avg_w)).toEqual([250.5, 250.5]);
    expect(r.report.skipped[0]).toMatchObject({ reason: 'unit MHz in column 3 where [W] was expected', lines: [4] });
  });
});

describe('hpc-ai-perf-bench rocm_smi.py importer (AMD sysfs sampler CSV)', () => {
  const log = fx('rocm_smi_gpu_usage.csv');
  const HEADER = 'timestamp,index,pci.bus_id,power.draw [W],clocks.gfx [MHz],clocks.mem [MHz],utilization.gpu [%],temperature.gpu [C]';

  it('reads 4 MI300X cards x 3 s at 100 ms: devices by DRM card number with bus ids, every reading, naive times in the zone', () => {
    const r = parseAll('hpcai-rocm-smi', log, { file: 'rocm_smi_gpu_usage.csv', zone: 'Europe/Berlin' });
    expect(r.rows).toHaveLength(120);
    // The index column is the card number (/sys/class/drm/card1..4), not a 0-based device index.
    expect(r.report.devices.map((d) => [d.key, d.kind, d.index, d.pci_bus_id, d.rows])).toEqual([
      ['gpu:1', 'gpu', 1, '0000:05:00.0', 30],
      ['gpu:2', 'gpu', 2, '0000:26:00.0', 30],
      ['gpu:3', 'gpu', 3, '0000:46:00.0', 30],
      ['gpu:4', 'gpu', 4, '0000:65:00.0', 30],
    ]);
    // 2026-11-30 09:00:00.013 in Berlin (CET, UTC+1); all cards of a tick share its timestamp.
    expect(r.rows[0]).toEqual({ t: utc('2026-11-30T08:00:00.013Z'), device: 0, values: { power_instant_w: 145.606221, sm_clock_mhz: 132, mem_clock_mhz: 900, util_gpu: 0, temp_c: 39 } });
    expect(r.rows.slice(0, 4).map((x) => [x.t, x.device])).toEqual([0, 1, 2, 3].map((d) => [utc('2026-11-30T08:00:00.013Z'), d]));
    // Line 64, the first tick under load: 2026-11-30 09:00:01.512,3,0000:46:00.0,408.931992,2100,1300,61,38.000
    expect(r.rows[62]).toEqual({ t: utc('2026-11-30T08:00:01.512Z'), device: 2, values: { power_instant_w: 408.931992, sm_clock_mhz: 2100, mem_clock_mhz: 1300, util_gpu: 61, temp_c: 38 } });
    expect(r.report.t_end! - r.report.t_start!).toBeCloseTo(2.9, 6);
    expect(r.report.columns.map((c) => [c.source, c.channel, c.unit, c.sensor_kind])).toEqual([
      ['power.draw', 'power_instant_w', 'W', 'instant'],
      ['clocks.gfx', 'sm_clock_mhz', 'MHz', null],
      ['clocks.mem', 'mem_clock_mhz', 'MHz', null],
      ['utilization.gpu', 'util_gpu', '%', null],
      ['temperature.gpu', 'temp_c', 'C', null],
    ]);
    // Card 3's temperature read failed once (an empty cell): missing, the rest of its row kept.
    expect(r.rows[30]!.values).toEqual({ power_instant_w: 145.166761, sm_clock_mhz: 133, mem_clock_mhz: 900, util_gpu: 0 });
    expect(r.report.warnings).toEqual(['1 empty cell(s) in column "temperature.gpu" (a sensor the sampler could not read) are stored as missing']);
    // The sampler was killed mid-line (as its Slurm scripts stop it): the cut last line is skipped, not the file.
    expect(r.report.skipped).toEqual([{ reason: 'truncated row: 4 of 8 fields', count: 1, lines: [122] }]);
  });

  it('shows the idle-to-load step of every card: power, gfx and memory clocks, utilisation, then temperature rise', () => {
    const r = parseAll('hpcai-rocm-smi', log, { file: 'l.csv', zone: 'UTC' });
    const step = utc('2026-11-30T09:00:01.5Z');
    for (let d = 0; d < 4; d++) {
      const idle = r.rows.filter((x) => x.device === d && x.t < step).map((x) => x.values);
      const load = r.rows.filter((x) => x.device === d && x.t > step + 0.1).map((x) => x.values);
      expect([idle.length, load.length]).toEqual([15, 14]);
      expect(Math.max(...idle.map((v) => v.power_instant_w!))).toBeLessThan(150);
      expect(Math.min(...load.map((v) => v.power_instant_w!))).toBeGreaterThan(690);
      expect(new Set(idle.map((v) => v.mem_clock_mhz))).toEqual(new Set([900]));
      expect(new Set(load.map((v) => v.mem_clock_mhz))).toEqual(new Set([1300]));
      expect(Math.max(...idle.map((v) => v.sm_clock_mhz!))).toBeLessThanOrEqual(133);
      expect(Math.min(...load.map((v) => v.sm_clock_mhz!))).toBeGreaterThanOrEqual(1890);
      expect(idle.every((v) => v.util_gpu === 0) && load.every((v) => v.util_gpu! >= 99)).toBe(true);
      expect(load.at(-1)!.temp_c! - idle[0]!.temp_c!).toBeGreaterThanOrEqual(5);
    }
  });

  it('gives the same rows whatever the chunking (CRLF lines split across chunks)', () => {
    const whole = parseAll('hpcai-rocm-smi', log, { file: 'a', zone: 'UTC' }).rows;
    expect(parseAll('hpcai-rocm-smi', log.match(/[\s\S]{1,7}/g)!, { file: 'a', zone: 'UTC' }).rows).toEqual(whole);
  });

  it('skips bad rows by reason and line, as the import report counts them; keeps the good ones', () => {
    const row = (cells: string) => `2026-11-30 09:00:00.113,${cells}`;
    const text = [
      HEADER,
      row('1,0000:05:00.0,412.345678,2100,1300,100,61.000'),
      row('1,0000:05:00.0,N/A,2100,1300,100,61.000'),
      row('1,0000:05:00.0,412.3 W,2100,1300,100,61.000'),
      row('x,0000:05:00.0,412.345678,2100,1300,100,61.000'),
      row('1.5,0000:05:00.0,412.345678,2100,1300,100,61.000'),
      '30/11/2026 09:00:00,1,0000:05:00.0,412.345678,2100,1300,100,61.000',
      row('1,0000:05:00.0,412.345678,2100,1300,100,61.000,7'),
      row('1,0000:05:00.0,-3.000000,2100,1300,100,61.000'),
      row('2,0000:26:00.0,,,,,'),
      row('2,0000:26:00.0,,,,'),
      HEADER,
      row('2,0000:26:00.0,398.000001,2098,1300,100,58.000'),
    ].join('\n');
    const r = parseAll('hpcai-rocm-smi', text, { file: 'bad.csv', zone: 'UTC' });
    expect(r.rows.map((x) => [x.device, x.values])).toEqual([
      [0, { power_instant_w: 412.345678, sm_clock_mhz: 2100, mem_clock_mhz: 1300, util_gpu: 100, temp_c: 61 }],
      [1, { power_instant_w: 398.000001, sm_clock_mhz: 2098, mem_clock_mhz: 1300, util_gpu: 100, temp_c: 58 }],
    ]);
    expect(r.report.rows_read).toBe(2);
    expect(r.report.rows_skipped).toBe(9);
    expect(r.report.skipped).toEqual([
      { reason: 'not a number in column 4', count: 2, lines: [3, 4] },
      { reason: 'index is not a card number (column 2)', count: 2, lines: [5, 6] },
      { reason: 'unreadable timestamp', count: 1, lines: [7] },
      { reason: 'too many fields: more than 8', count: 1, lines: [8] },
      { reason: 'impossible power: below 0 W', count: 1, lines: [9] },
      { reason: 'no reading: every cell empty', count: 1, lines: [10] },
      { reason: 'truncated row: 7 of 8 fields', count: 1, lines: [11] },
    ]);
    expect(r.report.warnings).toEqual([]);
  });

  it('names file and line for what it cannot read: wrong delimiter, a unit other than the sampler’s, no header, empty file', () => {
    expect(() => parseAll('hpcai-rocm-smi', HEADER.replaceAll(',', ';'), { file: 'semi.csv', zone: 'UTC' })).toThrow(/^semi\.csv:1: wrong delimiter/);
    expect(() => parseAll('hpcai-rocm-smi', HEADER.replace('[W]', '[mW]'), { file: 'mw.csv', zone: 'UTC' })).toThrow('mw.csv:1: column "power.draw" has unit [mW], expected [W]');
    expect(() => parseAll('hpcai-rocm-smi', log.split('\n').slice(1).join('\n'), { file: 'nohead.csv', zone: 'UTC' })).toThrow(/^nohead\.csv:1: not an hpc-ai-perf-bench rocm_smi\.py log/);
    expect(() => parseAll('hpcai-rocm-smi', '\n\n', { file: 'empty.csv', zone: 'UTC' })).toThrow('empty.csv: empty file: no header line');
  });
});

describe('WattAMeter importer', () => {
  it('reads NVML columns: mW -> W, mJ counter kept, C, %gpu; naive timestamps in the given zone; flush gaps', () => {
    const r = parseAll('wattameter', fx('wattameter-node.log'), { file: 'w.log', zone: 'America/Denver' });
    expect(r.rows).toHaveLength(10);
    expect(r.report.devices.map((d) => d.key)).toEqual(['gpu:0', 'gpu:1']);
    expect(r.rows[0]!.t - utc('2026-11-30T15:45:57Z')).toBeCloseTo(0.67337, 6);
    expect(r.rows[0]!.values).toEqual({ power_avg_w: 77.164, energy_mj: 2651053, temp_c: 40, util_gpu: 0 });
    expect(r.report.columns.find((c) => c.source === 'gpu-0[mW]')).toMatchObject({ unit: 'mW', channel: 'power_avg_w' });
    expect(r.report.devices[0]!.max_gap_s).toBeCloseTo(2.0, 3);
  });

  it('reads RAPL columns: uJ -> mJ counters on CPU devices, derived [W] labelled as counter-derived', () => {
    const r = parseAll('wattameter', fx('wattameter-rapl.log'), { file: 'r.log', zone: 'UTC' });
    expect(r.report.devices.map((d) => [d.key, d.kind])).toEqual([
      ['cpu:0', 'cpu'],
      ['cpu:1', 'cpu'],
    ]);
    expect(r.rows[0]!.values).toEqual({ energy_mj: 182736455.12, power_derived_w: 0 });
    expect(r.rows[2]!.values.energy_mj! - r.rows[0]!.values.energy_mj!).toBeCloseTo(15000, 6);
    expect(r.report.columns.find((c) => c.source === 'cpu-0[W]')?.sensor_kind).toBe('counter');
  });
});

describe('WattAMeter number fields', () => {
  it('reads integers digit by digit and every other number as the general reader does (fractions, signs, exponents, 16+ digits, text)', () => {
    const header = '# timestamp reading-time[ns] gpu-0[mW] gpu-0[mJ] gpu-0[C] gpu-0[%gpu] gpu-0[W]\n';
    const line = (cells: string) => `2026-11-30_08:00:00.000000 1 ${cells}\n`;
    const r = parseAll('wattameter', header + line('250000 1234567890123 45 100 250.5') + line('+5 1234567890123456 4.5e1 7\t+12') + line('12ab 9 45 100 1'), { file: 'n.log', zone: 'UTC' });
    expect(r.rows.map((x) => x.values)).toEqual([
      { power_avg_w: 250, energy_mj: 1234567890123, temp_c: 45, util_gpu: 100, power_derived_w: 250.5 },
      { power_avg_w: 0.005, energy_mj: 1234567890123456, temp_c: 45, util_gpu: 7, power_derived_w: 12 },
      { energy_mj: 9, temp_c: 45, util_gpu: 100, power_derived_w: 1 },
    ]);
  });
});

describe('other importers', () => {
  it('dcgmi dmon: rounds by entity repeat, N/A missing, TOTEC as counter', () => {
    const r = parseAll('dcgm-dmon', fx('dcgmi-dmon.txt'), { file: 'd.txt', zone: 'UTC', interval_s: 0.5 });
    expect(r.rows.map((x) => [x.t, x.device])).toEqual([[0, 0], [0, 1], [0.5, 0], [0.5, 1], [1, 0], [1, 1]]);
    expect(r.rows[3]!.values).toEqual({ energy_mj: 1790885116, sm_clock_mhz: 1965, util_gpu: 100, temp_c: 58 });
    expect(r.report.clock).toBe('relative');
  });

  it('Zeus windows: per-GPU derived power at each window end, windows as structure segments', () => {
    const r = parseAll('zeus', fx('zeus-windows.csv'), { file: 'z.csv', zone: 'UTC' });
    expect(r.rows).toHaveLength(6);
    expect(r.rows[0]).toMatchObject({ t: 1796032862.625, device: 0, values: { power_derived_w: 600 } });
    expect(r.segments.map((s) => [s.name, s.end - s.start])).toEqual([['epoch', 62.5], ['epoch', expect.closeTo(61.9, 6)], ['eval', expect.closeTo(10.2, 6)]]);
    expect(r.segments[0]!.energy_j).toBeCloseTo(73750.5, 6);
  });

  it('CodeCarbon: kWh -> mJ cumulative counters for gpu/cpu/ram, model names, run as segment', () => {
    const r = parseAll('codecarbon', fx('codecarbon-emissions.csv'), { file: 'e.csv', zone: 'Europe/Berlin' });
    expect(r.report.devices.map((d) => [d.key, d.name])).toEqual([
      ['gpu:all', '1 x NVIDIA H100 80GB HBM3'],
      ['cpu:all', 'AMD EPYC 9354 32-Core Processor'],
      ['ram', 'RAM'],
    ]);
    expect(r.rows[0]!.t).toBe(utc('2026-11-30T07:46:12Z'));
    expect(r.rows[0]!.values.energy_mj).toBeCloseTo(0.002492 * 3.6e9, 3);
    expect(r.segments).toEqual([expect.objectContaining({ name: '6f1c2d3e-4b5a-4c6d-9e8f-0a1b2c3d4e5f', start: utc('2026-11-30T07:45:57Z') })]);
  });

  it('Prometheus range query of dcgm-exporter metrics: one device by UUID, power/energy/clock series', () => {
    const r = parseAll('prometheus', fx('prometheus-dcgm.json'), { file: 'p.json', zone: 'UTC' });
    expect(r.report.devices).toEqual([expect.objectContaining({ key: 'GPU-2f0e6a4c-1b2d-4c6e-8f10-0a1b2c3d4e5f', name: 'NVIDIA H100 80GB HBM3', rows: 9 })]);
    expect(r.rows.filter((x) => x.values.energy_mj !== undefined).map((x) => x.values.energy_mj)).toEqual([1823736455, 1842160000, 1852000000]);
    expect(() => parseAll('prometheus', '{"status":"success","data":{"resultType":"vector","result":[]}}', { file: 'v.json', zone: 'UTC' })).toThrow(/v\.json: not a Prometheus range-query/);
  });

  it('NLR whole-facility profile: one facility device, utilisation fraction -> %', () => {
    const r = parseAll('facility-csv', fx('facility-profile.csv'), { file: 'colocation_20u_power.csv', zone: 'UTC' });
    expect(r.rows.map((x) => x.values)).toEqual([
      { power_avg_w: 2381250.5, util_gpu: 20 },
      { power_avg_w: 2392004.1, util_gpu: 20 },
      { power_avg_w: 2410877.9, util_gpu: 21 },
    ]);
    expect(r.rows[1]!.t - r.rows[0]!.t).toBe(60);
  });
});

describe('format detection', () => {
  it.each([
    ['nvidia-smi-seed.csv', 'nvidia-smi'],
    ['nvidia-smi-units.csv', 'nvidia-smi'],
    ['nvidia-smi-noheader.csv', 'nvidia-smi'],
    ['rocm_smi_gpu_usage.csv', 'hpcai-rocm-smi'],
    ['wattameter-node.log', 'wattameter'],
    ['wattameter-rapl.log', 'wattameter'],
    ['dcgmi-dmon.txt', 'dcgm-dmon'],
    ['zeus-windows.csv', 'zeus'],
    ['codecarbon-emissions.csv', 'codecarbon'],
    ['prometheus-dcgm.json', 'prometheus'],
    ['facility-profile.csv', 'facility-csv'],
  ])('%s is %s', (file, format) => {
    expect(detectFormat(fx(file).slice(0, 4096), file)).toBe(format);
  });
  it('recognises nothing in garbage', () => {
    expect(detectFormat('\u0000\u0001binary', 'x.bin')).toBeNull();
  });
});
