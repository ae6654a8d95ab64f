// Whole-facility power profiles (NLR dataset, 03_whole-facility_profiles): `timestamp,power_W,utilization` at
// 1 min. One device, kind 'facility'; power is a per-interval mean (sensor kind 'average').
import { BatchBuilder } from '../batch';
import { textStream, type ParserOptions, type StreamParser } from '../parser';
import { ImportError, ReportBuilder } from '../report';
import { WallClock } from '../time';
import { csvTable, num } from './csv-table';
import type { FormatModule } from '../format-module';

// Columns after the three are allowed: CapLab's facility planner adds total_power_W (IT plus overheads).
export const FACILITY_HEADER = /^timestamp,power_W,utilization(,[A-Za-z_][\w.[\]]*)*\s*$/;

export function facilityParser(opts: ParserOptions): StreamParser {
  const rep = new ReportBuilder('facility-csv', opts.file);
  const out = new BatchBuilder(opts.emit, opts.batchRows, opts.spareBatch);
  const clock = new WallClock(opts.zone);
  let dev = -1;
  const table = csvTable(
    opts.file,
    rep,
    (rec, line) => {
      const ts = rec.timestamp ?? '';
      const t = clock.parse(ts, 0, ts.length);
      const p = num(rec.power_W);
      if (Number.isNaN(t)) return rep.skip(line, 'unreadable timestamp');
      if (Number.isNaN(p)) return rep.skip(line, 'power_W is not a number');
      const i = out.row(t, dev);
      out.set(i, 'power_avg_w', p);
      out.set(i, 'util_gpu', num(rec.utilization) * (num(rec.utilization) <= 1 ? 100 : 1));
      rep.commit(out, i, line, t, dev);
    },
    (names, line) => {
      if (names[0] !== 'timestamp' || !names.includes('power_W')) throw new ImportError(opts.file, line, 'not a facility profile: expected timestamp,power_W,utilization');
      dev = rep.device('facility', { kind: 'facility', index: null, name: opts.file.replace(/^.*\//, '').replace(/\.csv$/, ''), uuid: null, pci_bus_id: null });
      rep.column({ source: 'power_W', channel: 'power_avg_w', unit: 'W', sensor_kind: 'average', note: 'facility power, mean per interval' });
      rep.column({ source: 'utilization', channel: 'util_gpu', unit: 'fraction or %', sensor_kind: null, note: 'node utilisation' });
      const extra = names.filter((n) => n !== 'timestamp' && n !== 'power_W' && n !== 'utilization');
      if (extra.length) rep.warn(`column(s) not imported: ${extra.join(', ')} (a facility profile is power_W and utilization)`);
    },
  );
  return textStream(rep.r, table, () => out.flush(), () => []);
}

export const facilityFormat: FormatModule<'facility-csv'> = {
  format: 'facility-csv',
  detect: [{ content: 'text', priority: 50, test: ({ first }) => FACILITY_HEADER.test(first) }],
  reader: { kind: 'stream', parser: facilityParser, encoding: 'utf8' },
};
