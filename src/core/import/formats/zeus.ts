// Zeus ZeusMonitor(log_file=...) CSV: `start_time,window_name,elapsed_time,gpu0_energy,...`, one row per
// measurement window (epoch seconds, seconds, joules per GPU). Each window becomes a structure segment and,
// per GPU, a power reading derived from its energy (sensor kind 'counter') at the window's end.
import { BatchBuilder } from '../batch';
import { textStream, type ParserOptions, type StreamParser, type StructureSegment } from '../parser';
import { ImportError, ReportBuilder } from '../report';
import { csvTable, num } from './csv-table';
import type { FormatModule } from '../format-module';

export const ZEUS_HEADER = /^start_time,window_name,elapsed_time(,gpu\d+_energy)*(,cpu\d+_energy)*/;

export function zeusParser(opts: ParserOptions): StreamParser {
  const rep = new ReportBuilder('zeus', opts.file);
  const out = new BatchBuilder(opts.emit, opts.batchRows, opts.spareBatch);
  const segments: StructureSegment[] = [];
  let energyCols: { name: string; dev: number }[] = [];
  const table = csvTable(
    opts.file,
    rep,
    (rec, line) => {
      const start = num(rec.start_time);
      const dur = num(rec.elapsed_time);
      if (!Number.isFinite(start) || !Number.isFinite(dur) || dur <= 0) {
        rep.skip(line, 'start_time or elapsed_time missing or not positive');
        return;
      }
      let total = 0;
      for (const c of energyCols) {
        const e = num(rec[c.name]);
        const i = out.row(start + dur, c.dev);
        out.set(i, 'power_derived_w', e / dur);
        if (rep.commit(out, i, line, start + dur, c.dev) && Number.isFinite(e)) total += e;
      }
      segments.push({ name: rec.window_name || `window ${segments.length + 1}`, start, end: start + dur, energy_j: total });
    },
    (names, line) => {
      if (names[0] !== 'start_time' || names[2] !== 'elapsed_time') throw new ImportError(opts.file, line, 'not a Zeus log: expected start_time,window_name,elapsed_time,...');
      energyCols = names
        .map((n) => /^(gpu|cpu)(\d+)_energy$/.exec(n))
        .filter((m): m is RegExpExecArray => m !== null)
        .map((m) => ({ name: m[0], dev: rep.device(`${m[1]}:${m[2]}`, { kind: m[1] as 'gpu' | 'cpu', index: Number(m[2]), name: null, uuid: null, pci_bus_id: null }) }));
      for (const c of energyCols)
        rep.column({ source: c.name, channel: 'power_derived_w', unit: 'J', sensor_kind: 'counter', note: 'window energy / elapsed_time, at the window end' });
    },
  );
  return textStream(rep.r, table, () => out.flush(), () => segments);
}

export const zeusFormat: FormatModule<'zeus'> = {
  format: 'zeus',
  detect: [{ content: 'text', priority: 30, test: ({ first }) => ZEUS_HEADER.test(first) }],
  reader: { kind: 'stream', parser: zeusParser, encoding: 'utf8' },
};
