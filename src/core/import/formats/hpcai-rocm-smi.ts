// hpc-ai-perf-bench's AMD sampler, `llm/training/slurm_scripts/rocm_smi.py` (the rocm-smi tool is not involved: it
// reads sysfs/hwmon every 100 ms). A CSV with the header
//   timestamp,index,pci.bus_id,power.draw [W],clocks.gfx [MHz],clocks.mem [MHz],utilization.gpu [%],temperature.gpu [C]
// and one row per card per tick, the cards of a tick sharing its timestamp: naive local `%Y-%m-%d %H:%M:%S.%f` cut to
// ms, `index` the DRM card number (/sys/class/drm/cardN, which need not be the HIP device index), power1_input µW as
// W with six decimals, and an empty cell where a sensor file is missing or a read failed. Its Slurm scripts stop it
// with kill, so the last line may be cut short.
import { cutText } from '../../../shared/format';
import { BatchBuilder, channelIndex, type Channel } from '../batch';
import { textStream, type ParserOptions, type StreamParser } from '../parser';
import { ImportError, noHeaderReason, ReportBuilder } from '../report';
import { LineSplitter, lastFieldEnd, lastNumberEnd, nextSep, sameAt, scanField, splitFields, trimEnd, trimStart } from '../scan';
import { WallClock } from '../time';
import type { FormatModule } from '../format-module';

interface Reading {
  channel: Channel;
  unit: string;
  kind?: 'instant';
  note: string;
}

const READINGS: Record<string, Reading> = {
  'power.draw': {
    channel: 'power_instant_w',
    unit: 'W',
    kind: 'instant',
    note: 'hwmon power1_input, instantaneous power (amdgpu); empty where the GPU has only power1_average',
  },
  'clocks.gfx': { channel: 'sm_clock_mhz', unit: 'MHz', note: 'hwmon freq1_input, the gfx clock' },
  'clocks.mem': { channel: 'mem_clock_mhz', unit: 'MHz', note: 'hwmon freq2_input, the memory clock' },
  'utilization.gpu': { channel: 'util_gpu', unit: '%', note: 'gpu_busy_percent' },
  'temperature.gpu': { channel: 'temp_c', unit: 'C', note: 'the hwmon sensor labelled junction, else hotspot, else edge' },
};

// Column codes for the row loop.
const TIME = 0;
const INDEX = 1;
const BUS = 2;
const IGNORED = 3;
const READING = 4;
const ROLES: Record<string, number> = { timestamp: TIME, index: INDEX, 'pci.bus_id': BUS };

/** The sampler's header; `clocks.gfx` is what sets it apart from nvidia-smi's `timestamp, index, ...` logs. */
export const HPCAI_ROCM_SMI_HEADER = /^timestamp\s*,(.*,)?\s*clocks\.gfx\b/;

export function hpcaiRocmSmiParser(opts: ParserOptions): StreamParser {
  const rep = new ReportBuilder('hpcai-rocm-smi', opts.file);
  const out = new BatchBuilder(opts.emit, opts.batchRows, opts.spareBatch);
  const clock = new WallClock(opts.zone);
  let header = '';
  let code = new Uint8Array(0);
  /** Per column: its channel's index (channelIndex), or -1. */
  let chanAt = new Int8Array(0);
  let names: string[] = [];
  let empty: number[] = [];
  let vals = new Float64Array(0);
  let readings = 0;

  const setup = (text: string, line: number) => {
    const fields = splitFields(text, ',');
    if (fields.length === 1 && /[;\t]/.test(text)) throw new ImportError(opts.file, line, `wrong delimiter: the sampler's CSV is comma-separated, this header uses ${text.includes(';') ? '";"' : 'tabs'}`);
    const seen = new Set<string>();
    const cols = fields.map((f) => {
      const m = /^(.*?)\s*\[(.+)\]$/.exec(f);
      const name = m ? m[1]! : f;
      const unit = m ? m[2]! : null;
      const role = ROLES[name];
      const r = READINGS[name];
      if (role === undefined && !r) {
        rep.warn(`column "${cutText(f)}" is not imported`);
        return { name, code: IGNORED, ch: -1 };
      }
      if (seen.has(name)) {
        rep.warn(`column "${cutText(f)}" repeats an earlier one and is ignored`);
        return { name, code: IGNORED, ch: -1 };
      }
      seen.add(name);
      if (!r) return { name, code: role!, ch: -1 };
      if (unit !== null && unit !== r.unit) throw new ImportError(opts.file, line, `column "${cutText(name)}" has unit [${cutText(unit)}], expected [${r.unit}]`);
      rep.column({ source: name, channel: r.channel, unit: r.unit, sensor_kind: r.kind ?? null, note: r.note });
      return { name, code: READING, ch: channelIndex(r.channel) };
    });
    if (!seen.has('timestamp') || !seen.has('index'))
      throw new ImportError(opts.file, line, 'not an hpc-ai-perf-bench rocm_smi.py log: its header starts "timestamp,index,pci.bus_id,power.draw [W],clocks.gfx [MHz],..."');
    if (!cols.some((c) => c.code === READING)) throw new ImportError(opts.file, line, 'no measurement column (power, clocks, utilisation, temperature) in the header');
    header = text;
    code = Uint8Array.from(cols, (c) => c.code);
    chanAt = Int8Array.from(cols, (c) => c.ch);
    names = cols.map((c) => c.name);
    empty = cols.map(() => 0);
    vals = new Float64Array(cols.length);
    readings = cols.filter((c) => c.code === READING).length;
  };

  const onLine = (s: string, a: number, b: number, line: number) => {
    a = trimStart(s, a, b);
    b = trimEnd(s, a, b);
    if (a >= b) return;
    if (!header) {
      setup(s.slice(a, b), line);
      return;
    }
    // Logs joined one after another (cat) repeat the header.
    if (b - a === header.length && sameAt(s, a, header)) return;
    const ncol = code.length;
    let t = NaN;
    let idx = NaN;
    let busA = -1;
    let busB = -1;
    let p = a;
    for (let f = 0; f < ncol; f++) {
      if (p > b) {
        rep.skip(line, `truncated row: ${f} of ${ncol} fields`);
        return;
      }
      const c = code[f]!;
      let e: number;
      if (c === READING || c === INDEX) {
        let v = scanField(s, p, b, 44);
        e = lastFieldEnd();
        const q = trimStart(s, p, e);
        const qe = trimEnd(s, q, e);
        // The sampler prints bare numbers: one with anything after it ("412 W") is as unreadable as text.
        if (!Number.isNaN(v) && lastNumberEnd() < qe) v = NaN;
        if (c === INDEX) {
          if (!(Number.isInteger(v) && v >= 0)) {
            rep.skip(line, `index is not a card number (column ${f + 1})`);
            return;
          }
          idx = v;
        } else {
          if (Number.isNaN(v) && q < qe) {
            rep.skip(line, `not a number in column ${f + 1}`);
            return;
          }
          vals[f] = v;
        }
      } else {
        e = nextSep(s, p, b, 44);
        if (c === TIME) {
          t = clock.parse(s, trimStart(s, p, e), trimEnd(s, p, e));
          if (Number.isNaN(t)) {
            rep.skip(line, 'unreadable timestamp');
            return;
          }
        } else if (c === BUS) {
          busA = trimStart(s, p, e);
          busB = trimEnd(s, busA, e);
        }
      }
      p = e + 1;
    }
    if (p <= b) {
      rep.skip(line, `too many fields: more than ${ncol}`);
      return;
    }
    let blanks = 0;
    for (let f = 0; f < ncol; f++) if (chanAt[f]! >= 0 && Number.isNaN(vals[f]!)) blanks++;
    if (blanks === readings) {
      rep.skip(line, 'no reading: every cell empty');
      return;
    }
    const dev = deviceOf(s, idx, busA, busB);
    const i = out.row(t, dev);
    for (let f = 0; f < ncol; f++) {
      const ch = chanAt[f]!;
      if (ch >= 0) out.setAt(i, ch, vals[f]!);
    }
    if (rep.commit(out, i, line, t, dev) && blanks) for (let f = 0; f < ncol; f++) if (chanAt[f]! >= 0 && Number.isNaN(vals[f]!)) empty[f]!++;
  };

  // Devices by card number, keyed `gpu:N` as other per-index logs are, so that the per-cap logs of one node (a
  // result tree) share their devices; the bus id is the one first seen with the card.
  const devs: number[] = [];
  const deviceOf = (s: string, idx: number, busA: number, busB: number): number => {
    const known = devs[idx];
    if (known !== undefined) return known;
    const dev = rep.device(`gpu:${idx}`, { kind: 'gpu', index: idx, name: null, uuid: null, pci_bus_id: busA < busB ? s.slice(busA, busB) : null });
    devs[idx] = dev;
    return dev;
  };

  const lines = new LineSplitter(onLine, (line) => rep.skip(line, 'line longer than 64 KiB'));
  return textStream(rep.r, lines, () => out.flush(), () => {
    if (!header) throw new ImportError(opts.file, null, noHeaderReason(rep, 'no header line'));
    empty.forEach((n, f) => {
      if (n) rep.warn(`${n} empty cell(s) in column "${cutText(names[f]!)}" (a sensor the sampler could not read) are stored as missing`);
    });
    return [];
  });
}

export const hpcaiRocmSmiFormat: FormatModule<'hpcai-rocm-smi'> = {
  format: 'hpcai-rocm-smi',
  // Before nvidia-smi (60), whose `timestamp,...` header rule and `gpu*.csv` name rule both take this log too.
  detect: [{ content: 'text', priority: 55, test: ({ first }) => HPCAI_ROCM_SMI_HEADER.test(first) }],
  reader: { kind: 'stream', parser: hpcaiRocmSmiParser, encoding: 'latin1' },
};
