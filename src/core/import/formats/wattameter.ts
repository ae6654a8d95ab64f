// WattAMeter logs (NLR): whitespace-separated text, a `# timestamp reading-time[ns] gpu-0[mW] ...` header,
// naive local timestamps `%Y-%m-%d_%H:%M:%S.%f`. NVML and RAPL columns by device: gpu-i[mW] power,
// gpu-i[mJ] and cpu-i[uJ] energy counters (kept as counters), gpu-i[C], gpu-i[%gpu], derived [W] columns.
import { cutText } from '../../../shared/format';
import type { ColumnInfo } from '../../../shared/dataset';
import { BatchBuilder, channelIndex, type Channel } from '../batch';
import { textStream, type ParserOptions, type StreamParser } from '../parser';
import { ImportError, noHeaderReason, ReportBuilder } from '../report';
import { LineSplitter, lastFieldEnd, scanField, trimEnd, trimStart } from '../scan';
import { WallClock } from '../time';
import type { FormatModule } from '../format-module';
import { COUNTER_READ_LAG_S } from '../../analysis/average-power';

const TAG = /^(gpu|cpu)-(\d+)\[([^\]]+)\]$/;

const UNITS: Record<string, { channel: Channel; scale: number; kind?: 'average' | 'counter'; note?: string }> = {
  mW: { channel: 'power_avg_w', scale: 1e-3, kind: 'average', note: 'NVML power usage (1 s average on Ampere and newer)' },
  W: { channel: 'power_derived_w', scale: 1, kind: 'counter', note: 'derived by WattAMeter from energy-counter deltas' },
  mJ: { channel: 'energy_mj', scale: 1 },
  uJ: { channel: 'energy_mj', scale: 1e-3 },
  J: { channel: 'energy_mj', scale: 1e3 },
  C: { channel: 'temp_c', scale: 1 },
  '%gpu': { channel: 'util_gpu', scale: 1 },
  '%mem': { channel: 'util_mem', scale: 1 },
  MHz: { channel: 'sm_clock_mhz', scale: 1 },
};

interface DeviceCols {
  dev: number;
  /** ch: the channel's index (channelIndex). */
  cols: { field: number; channel: Channel; ch: number; scale: number }[];
}

export const WATTAMETER_HEADER = /^#\s*timestamp\s+.*(gpu|cpu)-\d+\[/;

export function wattameterParser(opts: ParserOptions): StreamParser {
  const rep = new ReportBuilder('wattameter', opts.file);
  const out = new BatchBuilder(opts.emit, opts.batchRows, opts.spareBatch);
  const clock = new WallClock(opts.zone);
  let devices: DeviceCols[] | null = null;
  let nfields = 0;
  const vals = new Float64Array(256);

  const setup = (header: string, line: number) => {
    const names = header.replace(/^#\s*/, '').trim().split(/\s+/);
    if (names[0] !== 'timestamp') throw new ImportError(opts.file, line, 'WattAMeter header must start with "timestamp"');
    if (names.length > vals.length) throw new ImportError(opts.file, line, `too many columns (${names.length})`);
    nfields = names.length;
    const byKey = new Map<string, DeviceCols>();
    names.forEach((n, field) => {
      if (field === 0) return;
      const m = TAG.exec(n);
      if (!m) {
        if (n !== 'reading-time[ns]') rep.warn(`column "${cutText(n)}" is not imported`);
        return;
      }
      const [, kind, idx, unit] = m;
      const u = UNITS[unit!];
      if (!u) {
        rep.warn(`column "${cutText(n)}" has unknown unit [${cutText(String(unit))}] and is not imported`);
        return;
      }
      const key = `${kind}:${idx}`;
      let d = byKey.get(key);
      if (!d) {
        d = { dev: rep.device(key, { kind: kind as 'gpu' | 'cpu', index: Number(idx), name: null, uuid: null, pci_bus_id: null }), cols: [] };
        byKey.set(key, d);
      }
      if (d.cols.some((c) => c.channel === u.channel)) {
        rep.warn(`column "${cutText(n)}" duplicates ${u.channel} of ${key} and is ignored`);
        return;
      }
      d.cols.push({ field, channel: u.channel, ch: channelIndex(u.channel), scale: u.scale });
      const info: ColumnInfo = { source: n, channel: u.channel, unit: unit ?? null, sensor_kind: u.kind ?? null, note: u.note ?? null };
      rep.column(info);
    });
    devices = [...byKey.values()];
    if (devices.length === 0) throw new ImportError(opts.file, line, 'no gpu-i[...] or cpu-i[...] column in the header');
  };

  const onLine = (s: string, a: number, b: number, line: number) => {
    a = trimStart(s, a, b);
    b = trimEnd(s, a, b);
    if (a >= b) return;
    if (s.charCodeAt(a) === 35) {
      const text = s.slice(a, b);
      if (WATTAMETER_HEADER.test(text)) {
        if (!devices) setup(text, line);
        else if (text.replace(/\s+/g, ' ') !== headerNorm) rep.skip(line, 'a second, different header');
        headerNorm ||= text.replace(/\s+/g, ' ');
      }
      return;
    }
    if (!devices) throw new ImportError(opts.file, line, 'data before the "# timestamp ..." header line');
    let p = a;
    let f = 0;
    let t = NaN;
    let c: number;
    while (p < b) {
      if (f >= nfields) {
        rep.skip(line, `too many fields: more than ${nfields}`);
        return;
      }
      let e: number;
      if (f === 0) {
        e = p;
        while (e < b && (c = s.charCodeAt(e)) !== 32 && c !== 9) e++;
        t = clock.parse(s, p, e);
        if (Number.isNaN(t)) {
          rep.skip(line, 'unreadable timestamp');
          return;
        }
      } else {
        // Plain unsigned integers (most NVML and RAPL columns) are read here, digit by digit; anything else (signs,
        // fractions, exponents, text, 16 digits or more) by scanField, which gives the same value for these.
        let v = 0;
        e = p;
        while (e < b && (c = s.charCodeAt(e)) >= 48 && c <= 57) {
          v = v * 10 + (c - 48);
          e++;
        }
        if (e > p && e - p <= 15 && (e === b || c! === 32 || c! === 9)) vals[f] = v;
        else {
          vals[f] = scanField(s, p, b, 32);
          e = lastFieldEnd();
        }
      }
      f++;
      p = e;
      while (p < b && ((c = s.charCodeAt(p)) === 32 || c === 9)) p++;
    }
    if (f < nfields) {
      rep.skip(line, `truncated row: ${f} of ${nfields} fields`);
      return;
    }
    for (const d of devices) {
      const i = out.row(t, d.dev);
      for (const col of d.cols) out.setAt(i, col.ch, vals[col.field]! * col.scale);
      rep.commit(out, i, line, t, d.dev);
    }
  };
  let headerNorm = '';

  const lines = new LineSplitter(onLine, (line) => rep.skip(line, 'line longer than 64 KiB'));
  return textStream(rep.r, lines, () => out.flush(), () => {
    if (!devices) throw new ImportError(opts.file, null, noHeaderReason(rep, 'no "# timestamp ..." header'));
    return [];
  });
}

export const wattameterFormat: FormatModule<'wattameter'> = {
  format: 'wattameter',
  // Its header may follow other comment lines, so any line may carry it.
  detect: [{ content: 'text', priority: 10, test: ({ lines }) => lines.some((l) => WATTAMETER_HEADER.test(l)) }],
  commentHeader: WATTAMETER_HEADER,
  // gpu-i[mJ] is nvmlDeviceGetTotalEnergyConsumption read on WattAMeter's own clock: half an update old on average.
  counterLagS: COUNTER_READ_LAG_S,
  reader: { kind: 'stream', parser: wattameterParser, encoding: 'latin1' },
};
