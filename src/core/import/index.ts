import type { ImportFormat } from '../../shared/dataset';
import type { ParserOptions, StreamParser } from './parser';
import { ImportError } from './report';
import { codecarbonParser } from './formats/codecarbon';
import { dcgmDmonParser } from './formats/dcgm-dmon';
import { facilityParser } from './formats/facility';
import { nvidiaSmiParser } from './formats/nvidia-smi';
import { prometheusParser } from './formats/prometheus';
import { wattameterParser } from './formats/wattameter';
import { zeusParser } from './formats/zeus';

export { detectFormat } from './detect';
export { ImportError } from './report';
export type { ColumnBatch, Channel } from './batch';
export { CHANNELS } from './batch';
export type { ParserOptions, StreamParser, ParseResult, StructureSegment } from './parser';

const PARSERS: Partial<Record<ImportFormat, (o: ParserOptions) => StreamParser>> = {
  'nvidia-smi': nvidiaSmiParser,
  wattameter: wattameterParser,
  'dcgm-dmon': dcgmDmonParser,
  prometheus: prometheusParser,
  zeus: zeusParser,
  codecarbon: codecarbonParser,
  'facility-csv': facilityParser,
};

export function createParser(format: ImportFormat, opts: ParserOptions): StreamParser {
  const make = PARSERS[format];
  if (!make) throw new ImportError(opts.file, null, `no streaming parser for format ${format}`);
  return make(opts);
}
