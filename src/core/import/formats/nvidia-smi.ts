// nvidia-smi --query-gpu logs: --format=csv, csv,nounits, csv,noheader (with the field list), any field order
// and subset, several GPUs interleaved, `[N/A]` / `[Not Supported]` cells, timestamps in a given zone.
import { cutText } from '../../../shared/format';
import type { ColumnInfo } from '../../../shared/dataset';
import { BatchBuilder, channelIndex, type Channel } from '../batch';
import { textStream, type ParserOptions, type StreamParser } from '../parser';
import { ImportError, noHeaderReason, ReportBuilder } from '../report';
import { LineSplitter, lastFieldEnd, lastNumberEnd, sameAt, scanField, splitFields, trimEnd, trimStart } from '../scan';
import { WallClock } from '../time';
import type { FormatModule } from '../format-module';

type Role = 'time' | 'index' | 'name' | 'uuid' | 'bus' | 'ignore' | Channel;

interface FieldSpec {
  role: Role;
  unit: string | null;
  kind?: 'instant' | 'average';
  note?: string;
}

/** Query names (and their long aliases as printed in headers) → what they become. */
const FIELDS: Record<string, FieldSpec> = {
  timestamp: { role: 'time', unit: null },
  index: { role: 'index', unit: null },
  name: { role: 'name', unit: null },
  gpu_name: { role: 'name', unit: null },
  uuid: { role: 'uuid', unit: null },
  gpu_uuid: { role: 'uuid', unit: null },
  'pci.bus_id': { role: 'bus', unit: null },
  gpu_bus_id: { role: 'bus', unit: null },
  'power.draw': {
    role: 'power_avg_w',
    unit: 'W',
    kind: 'average',
    note: 'power.draw is a 1 s moving average on Ampere and newer (instantaneous on older GPUs)',
  },
  'power.draw.average': { role: 'power_avg_w', unit: 'W', kind: 'average' },
  'power.draw.instant': { role: 'power_instant_w', unit: 'W', kind: 'instant' },
  'power.limit': { role: 'limit_w', unit: 'W' },
  'enforced.power.limit': { role: 'limit_w', unit: 'W' },
  'clocks.sm': { role: 'sm_clock_mhz', unit: 'MHz' },
  'clocks.current.sm': { role: 'sm_clock_mhz', unit: 'MHz' },
  'clocks.mem': { role: 'mem_clock_mhz', unit: 'MHz' },
  'clocks.current.memory': { role: 'mem_clock_mhz', unit: 'MHz' },
  'temperature.gpu': { role: 'temp_c', unit: 'C' },
  'utilization.gpu': { role: 'util_gpu', unit: '%' },
  'utilization.memory': { role: 'util_mem', unit: '%' },
  'memory.used': { role: 'mem_used_mb', unit: 'MiB' },
};

const UNIT_SCALE: Record<string, Record<string, number>> = {
  W: { W: 1, mW: 1e-3, kW: 1e3 },
  MHz: { MHz: 1, GHz: 1e3, kHz: 1e-3 },
  MiB: { MiB: 1, GiB: 1024, KiB: 1 / 1024, MB: 1 },
  C: { C: 1 },
  '%': { '%': 1 },
};

interface Column {
  role: Role;
  /** Multiplier from the header's unit to the channel's. */
  scale: number;
  /** Unit the values must carry when the format prints units, else null. */
  unit: string | null;
}

/** The header of a `csv` / `csv,nounits` log: `power.draw [W]` → name and unit. */
function parseHeaderField(f: string): { name: string; unit: string | null } {
  const m = /^(.*?)\s*\[(.+)\]$/.exec(f.trim());
  return m ? { name: m[1]!.trim(), unit: m[2]!.trim() } : { name: f.trim(), unit: null };
}

export const NVIDIA_SMI_HEADER = /^\s*(timestamp|index|name|uuid|pci\.bus_id|power\.draw|clocks\.|temperature\.gpu|utilization\.)/;

export function nvidiaSmiParser(opts: ParserOptions): StreamParser {
  const rep = new ReportBuilder('nvidia-smi', opts.file);
  const out = new BatchBuilder(opts.emit, opts.batchRows, opts.spareBatch);
  const clock = new WallClock(opts.zone);
  let cols: Column[] | null = null;
  let headerLine = '';
  /** Per column: its channel's index (channelIndex), or -1. */
  let chanAt = new Int8Array(0);
  // Per column: 0 time, 1 index, 2 uuid, 3 bus, 4 name, 5 ignored, 6 a reading; kept in typed arrays for the hot loop.
  let code = new Uint8Array(0);
  let scale = new Float64Array(0);
  let units: (string | null)[] = [];
  let nanCells = 0;

  const setup = (names: { name: string; unit: string | null }[], line: number) => {
    const seen = new Set<string>();
    cols = names.map(({ name, unit }) => {
      const spec = FIELDS[name];
      if (!spec) {
        rep.warn(`column "${cutText(name)}" is not imported`);
        return { role: 'ignore', scale: 1, unit: null };
      }
      if (spec.role !== 'ignore' && seen.has(spec.role) && spec.role !== 'name') {
        rep.warn(`column "${cutText(name)}" duplicates another ${spec.role} column and is ignored`);
        return { role: 'ignore', scale: 1, unit: null };
      }
      seen.add(spec.role);
      let scale = 1;
      if (spec.unit && unit && unit !== spec.unit) {
        const s = UNIT_SCALE[spec.unit]?.[unit];
        if (s === undefined) throw new ImportError(opts.file, line, `column "${cutText(name)}" has unit [${cutText(unit)}], expected [${spec.unit}]`);
        scale = s;
      }
      if (spec.unit) {
        const info: ColumnInfo = { source: name, channel: spec.role, unit: unit ?? spec.unit, sensor_kind: spec.kind ?? null, note: spec.note ?? null };
        rep.column(info);
      }
      return { role: spec.role, scale, unit: unit ?? spec.unit };
    });
    if (!seen.has('time')) rep.warn('no timestamp column: rows are numbered 1 s apart from 0');
    if (!cols.some((c) => c.role !== 'time' && c.role !== 'index' && c.role !== 'name' && c.role !== 'uuid' && c.role !== 'bus' && c.role !== 'ignore'))
      throw new ImportError(opts.file, line, 'no measurement column (power, clocks, temperature, utilisation, memory) in the field list');
    if (!seen.has('time')) rep.r.clock = 'relative';
    chanAt = Int8Array.from(cols, (c) => (['time', 'index', 'name', 'uuid', 'bus', 'ignore'].includes(c.role) ? -1 : channelIndex(c.role as Channel)));
    const CODES: Record<string, number> = { time: 0, index: 1, uuid: 2, bus: 3, name: 4, ignore: 5 };
    code = Uint8Array.from(cols, (c) => CODES[c.role] ?? 6);
    scale = Float64Array.from(cols, (c) => c.scale);
    units = cols.map((c) => c.unit);
  };

  let rowNo = 0;
  const onLine = (s: string, a: number, b: number, line: number) => {
    a = trimStart(s, a, b);
    b = trimEnd(s, a, b);
    if (a >= b || s.charCodeAt(a) === 35) return;
    if (!cols) {
      const text = s.slice(a, b);
      if (NVIDIA_SMI_HEADER.test(text) && !/^\d/.test(text)) {
        const fields = splitFields(text, ',');
        if (fields.length === 1 && /[;\t]/.test(text))
          throw new ImportError(opts.file, line, `wrong delimiter: nvidia-smi CSV is comma-separated, this header uses ${text.includes(';') ? '";"' : 'tabs'}`);
        headerLine = text;
        setup(fields.map(parseHeaderField), line);
        return;
      }
      if (!opts.fields) throw new ImportError(opts.file, line, 'no nvidia-smi header line; for --format=csv,noheader logs pass the --query-gpu field list (--fields)', 'fields');
      setup(opts.fields.map((f) => ({ name: f.trim(), unit: null })), line);
    }
    if (b - a === headerLine.length && sameAt(s, a, headerLine)) return;
    const ncol = code.length;
    let t = NaN;
    let idx = -1;
    let uA = -1, uB = -1, bA = -1, bB = -1, nA = -1, nB = -1;
    const vals = tmp;
    let p = a;
    for (let f = 0; f < ncol; f++) {
      if (p > b) {
        rep.skip(line, `truncated row: ${f} of ${ncol} fields`);
        return;
      }
      const role = code[f]!;
      let e: number;
      if (role === 6) {
        // Numbers are read in the same pass that finds the field's end (no separate search for the comma).
        let v = scanField(s, p, b, 44);
        e = lastFieldEnd();
        if (Number.isNaN(v)) {
          const q = trimStart(s, p, e);
          if (s.charCodeAt(q) !== 91 && q < trimEnd(s, p, e)) {
            rep.skip(line, `not a number in column ${f + 1}`);
            return;
          }
          nanCells++;
        } else {
          const ne = lastNumberEnd();
          if (ne < e) v = withUnit(s, ne, e, units[f]!, v, line, f);
          v *= scale[f]!;
        }
        vals[f] = v;
      } else if (role === 1) {
        idx = scanField(s, p, b, 44);
        e = lastFieldEnd();
      } else {
        e = s.indexOf(',', p);
        if (e === -1 || e > b) e = b;
        if (role === 0) {
          t = clock.parse(s, trimStart(s, p, e), trimEnd(s, p, e));
          if (Number.isNaN(t)) {
            rep.skip(line, 'unreadable timestamp');
            return;
          }
        } else if (role === 2) {
          uA = trimStart(s, p, e);
          uB = trimEnd(s, uA, e);
        } else if (role === 3) {
          bA = trimStart(s, p, e);
          bB = trimEnd(s, bA, e);
        } else if (role === 4) {
          if (nA < 0) {
            nA = trimStart(s, p, e);
            nB = trimEnd(s, nA, e);
          }
        }
      }
      p = e + 1;
    }
    if (Number.isNaN(badUnit)) {
      badUnit = 0;
      return;
    }
    if (p <= b) {
      rep.skip(line, `too many fields: more than ${ncol}`);
      return;
    }
    if (Number.isNaN(t)) {
      if (rep.r.clock !== 'relative') return;
      t = rowNo;
    }
    rowNo++;
    const dev = deviceOf(s, idx, uA, uB, bA, bB, nA, nB);
    const i = out.row(t, dev);
    for (let f = 0; f < ncol; f++) {
      const ch = chanAt[f]!;
      if (ch >= 0) out.setAt(i, ch, vals[f]!);
    }
    rep.commit(out, i, line, t, dev);
  };
  const tmp = new Float64Array(256);
  let badUnit = 0;
  /** A value printed with a unit ("250.1 W"): converted when the unit differs from the header's, NaN row when unknown. */
  const withUnit = (s: string, ne: number, e: number, unit: string, v: number, line: number, f: number): number => {
    const u = trimStart(s, ne, e);
    const ue = trimEnd(s, u, e);
    if (ue === u || (ue - u === unit.length && s.startsWith(unit, u))) return v;
    const found = s.slice(u, ue);
    const k = UNIT_SCALE[unit]?.[found];
    if (k === undefined) {
      if (!Number.isNaN(badUnit)) rep.skip(line, `unit ${found} in column ${f + 1} where [${unit}] was expected`);
      badUnit = NaN;
      return NaN;
    }
    return v * k;
  };

  // Devices by index, each with the identity string (UUID, else bus id) it was first seen with: the common case
  // (same GPU at the same index) is checked in place, without slicing a string per row.
  const idCache: { dev: number; id: string | null }[] = [];
  // A flat copy of the identity, not a slice of an old chunk (a V8 sliced string: slow to compare, and it pins the
  // chunk); sameAt then compares it in place, without a string per row.
  const sameId = (s: string, a: number, b: number, id: string) => b - a === id.length && s.substring(a, b) === id;
  const deviceOf = (s: string, idx: number, uA: number, uB: number, bA: number, bB: number, nA: number, nB: number): number => {
    const okIdx = idx >= 0 && Number.isInteger(idx);
    const idA = uA >= 0 ? uA : bA;
    const idB = uA >= 0 ? uB : bB;
    if (okIdx) {
      const c = idCache[idx];
      if (c && (c.id === null ? idA < 0 : idA >= 0 && sameId(s, idA, idB, c.id))) return c.dev;
    }
    const uuid = uA >= 0 ? s.slice(uA, uB) : null;
    const bus = bA >= 0 ? s.slice(bA, bB) : null;
    const key = uuid ?? (okIdx ? `gpu:${idx}` : bus ? `bus:${bus}` : 'gpu:0');
    const dev = rep.device(key, { kind: 'gpu', index: okIdx ? idx : null, name: nA >= 0 ? s.slice(nA, nB) : null, uuid, pci_bus_id: bus });
    const id = uuid ?? bus;
    if (okIdx) idCache[idx] = { dev, id: id === null ? null : String.fromCharCode(...Array.from(id, (ch) => ch.charCodeAt(0))) };
    return dev;
  };

  const lines = new LineSplitter(onLine, (line) => rep.skip(line, 'line longer than 64 KiB'));
  return textStream(rep.r, lines, () => out.flush(), () => {
    if (!cols) throw new ImportError(opts.file, null, noHeaderReason(rep, 'no header and no rows'));
    if (nanCells) rep.warn(nanCellWarning(nanCells));
    return [];
  });
}

const nanCellWarning = (n: number) => `${n} cell(s) were [N/A] or [Not Supported] and are stored as missing`;
const NAN_CELLS = /^(\d+) cell\(s\) were \[N\/A\] or \[Not Supported\] and are stored as missing$/;

/** The warnings of a log parsed in chunks, as one parser gives them: each once, the missing-cell counts summed (last). */
function mergeNanCellWarnings(warnings: readonly string[]): string[] {
  const out: string[] = [];
  let cells = 0;
  for (const w of warnings) {
    const m = NAN_CELLS.exec(w);
    if (m) cells += Number(m[1]);
    else if (!out.includes(w)) out.push(w);
  }
  if (cells) out.push(nanCellWarning(cells));
  return out;
}

/**
 * Whether a log whose first line is `line` can be parsed in chunks: a header naming a timestamp
 * column, so that every row stands alone (no row numbers as the clock) and replaying the header sets up any chunk.
 */
function shardableHeader(line: string): boolean {
  const text = line.trim();
  if (!NVIDIA_SMI_HEADER.test(text) || /^\d/.test(text) || text.startsWith('#')) return false;
  const fields = splitFields(text, ',');
  return fields.length > 1 && fields.some((f) => parseHeaderField(f).name === 'timestamp');
}

export const nvidiaSmiFormat: FormatModule<'nvidia-smi'> = {
  format: 'nvidia-smi',
  // Last among text formats: its header rule (`timestamp,...`) also matches CodeCarbon's and the facility profile's.
  detect: [
    {
      content: 'text',
      priority: 60,
      test: ({ first, name }) =>
        (NVIDIA_SMI_HEADER.test(first) && first.includes(',')) ||
        // Headerless rows start with its timestamp: "2026/11/30 08:45:57.673, ..."
        /^\d{4}\/\d{2}\/\d{2} \d{2}:\d{2}:\d{2}\.\d{3}\s*,/.test(first) ||
        (/nvidia-smi|gpu.*\.csv$/i.test(name) && first.includes(',')),
    },
  ],
  reader: { kind: 'stream', parser: nvidiaSmiParser, encoding: 'latin1', chunks: { header: shardableHeader, mergeWarnings: mergeNanCellWarnings } },
};
