// CodeCarbon emissions.csv: one row per measurement (or per run), `timestamp` ISO local time, cumulative
// cpu/gpu/ram_energy in kWh, cpu/gpu/ram_power in W. Energies are kept as counters (kWh → mJ); each run_id is a
// structure segment.
import { BatchBuilder, type Channel } from '../batch';
import { textStream, type ParserOptions, type StreamParser, type StructureSegment } from '../parser';
import { ImportError, ReportBuilder } from '../report';
import { WallClock } from '../time';
import { csvTable, num } from './csv-table';
import type { FormatModule } from '../format-module';

const KWH_TO_MJ = 3.6e9;
const PARTS = ['gpu', 'cpu', 'ram'] as const;

export function codecarbonParser(opts: ParserOptions): StreamParser {
  const rep = new ReportBuilder('codecarbon', opts.file);
  const out = new BatchBuilder(opts.emit, opts.batchRows, opts.spareBatch);
  const clock = new WallClock(opts.zone);
  const segments: StructureSegment[] = [];
  const devs: Partial<Record<(typeof PARTS)[number], number>> = {};
  const table = csvTable(
    opts.file,
    rep,
    (rec, line) => {
      const ts = rec.timestamp ?? '';
      const t = clock.parse(ts, 0, ts.length);
      if (Number.isNaN(t)) {
        rep.skip(line, 'unreadable timestamp');
        return;
      }
      for (const p of PARTS) {
        const d = devs[p];
        if (d === undefined) continue;
        if (p === 'gpu' && rep.r.devices[d]!.name === null && rec.gpu_model) rep.r.devices[d]!.name = rec.gpu_model;
        if (p === 'cpu' && rep.r.devices[d]!.name === null && rec.cpu_model) rep.r.devices[d]!.name = rec.cpu_model;
        const i = out.row(t, d);
        const set = (ch: Channel, v: number) => out.set(i, ch, v);
        set('energy_mj', num(rec[`${p}_energy`]) * KWH_TO_MJ);
        set('power_derived_w', num(rec[`${p}_power`]));
        rep.commit(out, i, line, t, d);
      }
      const dur = num(rec.duration);
      const run = rec.run_id || `run ${segments.length + 1}`;
      if (Number.isFinite(dur) && dur > 0) {
        const seg = segments.find((s) => s.name === run);
        if (seg) seg.end = Math.max(seg.end, t);
        else segments.push({ name: run, start: t - dur, end: t, energy_j: num(rec.energy_consumed) * KWH_TO_MJ * 1e-3 });
      }
    },
    (names, line) => {
      if (!names.includes('timestamp') || !names.includes('energy_consumed'))
        throw new ImportError(opts.file, line, 'not a CodeCarbon emissions.csv: expected timestamp and energy_consumed columns');
      for (const p of PARTS) {
        if (!names.includes(`${p}_energy`)) continue;
        devs[p] = rep.device(p === 'ram' ? 'ram' : `${p}:all`, { kind: p === 'gpu' ? 'gpu' : 'cpu', index: null, name: p === 'ram' ? 'RAM' : null, uuid: null, pci_bus_id: null });
        rep.column({ source: `${p}_energy`, channel: 'energy_mj', unit: 'kWh', sensor_kind: null, note: 'cumulative since the tracker started' });
        rep.column({ source: `${p}_power`, channel: 'power_derived_w', unit: 'W', sensor_kind: 'counter', note: 'CodeCarbon power over its last interval' });
      }
    },
  );
  return textStream(rep.r, table, () => out.flush(), () => segments);
}

export const codecarbonFormat: FormatModule<'codecarbon'> = {
  format: 'codecarbon',
  detect: [
    {
      content: 'text',
      priority: 40,
      test: ({ first }) => /^timestamp,project_name,run_id,/.test(first) || (/(^|,)energy_consumed(,|$)/.test(first) && /(^|,)timestamp(,|$)/.test(first)),
    },
  ],
  reader: { kind: 'stream', parser: codecarbonParser, encoding: 'utf8' },
};
