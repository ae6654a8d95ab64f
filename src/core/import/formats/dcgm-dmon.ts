// `dcgmi dmon -e <field ids>` text: a `#Entity  POWER  TOTEC ...` header (repeated now and then), optionally a
// `ID  W  mJ ...` units line, then one `GPU <i>  v1  v2 ...` row per entity per sample, `N/A` for blanks.
// dmon prints no timestamps: sample k (a new round starts when an entity repeats) is placed at k * --delay.
import { cutText } from '../../../shared/format';
import { BatchBuilder, type Channel } from '../batch';
import { textStream, type ParserOptions, type StreamParser } from '../parser';
import { ImportError, noHeaderReason, ReportBuilder } from '../report';
import { LineSplitter, parseNumber } from '../scan';
import type { FormatModule } from '../format-module';

/** dmon short column names → channel and kind. */
const SHORT: Record<string, { channel: Channel; source: string; kind?: 'average'; unit: string }> = {
  POWER: { channel: 'power_avg_w', source: 'POWER (155, power usage)', kind: 'average', unit: 'W' },
  TOTEC: { channel: 'energy_mj', source: 'TOTEC (156, total energy consumption)', unit: 'mJ' },
  SMCLK: { channel: 'sm_clock_mhz', source: 'SMCLK (100)', unit: 'MHz' },
  MMCLK: { channel: 'mem_clock_mhz', source: 'MMCLK (101)', unit: 'MHz' },
  TMPTR: { channel: 'temp_c', source: 'TMPTR (150, GPU temperature)', unit: 'C' },
  GTEMP: { channel: 'temp_c', source: 'GTEMP (150)', unit: 'C' },
  GPUTL: { channel: 'util_gpu', source: 'GPUTL (203)', unit: '%' },
  MCUTL: { channel: 'util_mem', source: 'MCUTL (204)', unit: '%' },
  FBUSD: { channel: 'mem_used_mb', source: 'FBUSD (252)', unit: 'MiB' },
};

export const DCGM_HEADER = /^#Entity\s+/;

export function dcgmDmonParser(opts: ParserOptions): StreamParser {
  const rep = new ReportBuilder('dcgm-dmon', opts.file);
  rep.r.clock = 'relative';
  const out = new BatchBuilder(opts.emit, opts.batchRows, opts.spareBatch);
  const delay = opts.interval_s ?? 1;
  let cols: (Channel | null)[] | null = null;
  let header = '';
  let round = 0;
  const seenThisRound = new Set<string>();

  const onLine = (s: string, a: number, b: number, line: number) => {
    const text = s.slice(a, b).trim();
    if (!text) return;
    if (DCGM_HEADER.test(text)) {
      const names = text.split(/\s+/).slice(1);
      const norm = names.join(' ');
      if (cols && norm === header) return;
      if (cols) throw new ImportError(opts.file, line, 'the field list changes mid-log');
      header = norm;
      cols = names.map((n) => {
        const m = SHORT[n];
        if (!m) {
          rep.warn(`column "${cutText(n)}" is not imported`);
          return null;
        }
        rep.column({ source: m.source, channel: m.channel, unit: m.unit, sensor_kind: m.kind ?? null, note: null });
        return m.channel;
      });
      return;
    }
    if (/^ID\s/.test(text)) return;
    if (!cols) throw new ImportError(opts.file, line, 'data before the "#Entity ..." header');
    const parts = text.split(/\s+/);
    const m = /^(GPU|GPU-I|GPU-CI|CPU|Switch|Link)$/.exec(parts[0]!);
    if (!m || parts.length < 2 || !/^\d+$/.test(parts[1]!)) {
      rep.skip(line, 'not an entity row');
      return;
    }
    if (parts.length !== cols.length + 2) {
      rep.skip(line, `${parts.length - 2} values where the header has ${cols.length}`);
      return;
    }
    const key = `${parts[0]!.toLowerCase()}:${parts[1]}`;
    if (seenThisRound.has(key)) {
      round++;
      seenThisRound.clear();
    }
    seenThisRound.add(key);
    const dev = rep.device(key, { kind: 'gpu', index: Number(parts[1]), name: null, uuid: null, pci_bus_id: null });
    const t = round * delay;
    const i = out.row(t, dev);
    cols.forEach((ch, k) => {
      if (ch) out.set(i, ch, parseNumber(parts[k + 2]!, 0, parts[k + 2]!.length));
    });
    rep.commit(out, i, line, t, dev);
  };
  const lines = new LineSplitter(onLine, (line) => rep.skip(line, 'line longer than 64 KiB'));
  return textStream(rep.r, lines, () => out.flush(), () => {
    if (!cols) throw new ImportError(opts.file, null, noHeaderReason(rep, 'no "#Entity" header'));
    rep.warn(`dcgmi dmon prints no timestamps: samples placed ${delay} s apart from 0 (--interval to change)`);
    return [];
  });
}

export const dcgmDmonFormat: FormatModule<'dcgm-dmon'> = {
  format: 'dcgm-dmon',
  detect: [{ content: 'text', priority: 20, test: ({ first }) => DCGM_HEADER.test(first) }],
  commentHeader: DCGM_HEADER,
  reader: { kind: 'stream', parser: dcgmDmonParser, encoding: 'utf8' },
};
