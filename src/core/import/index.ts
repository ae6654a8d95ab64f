import type { ImportFormat } from '../../shared/dataset';
import type { ParserOptions, StreamParser } from './parser';
import { ImportError } from './report';
import { formatModule } from './formats';

export { detectCandidates, detectFormat } from './detect';
export { ImportError, type ImportNeed, MAX_SKIP_EXAMPLES, noSampleReason, reorderWarning } from './report';
export { counterLagOf, formatModule } from './formats';
export type { FormatModule, FormatReader } from './format-module';
export type { ColumnBatch, Channel } from './batch';
export { CHANNELS, batchBuffers } from './batch';
export type { ParserOptions, StreamParser, ParseResult, StructureSegment } from './parser';

export function createParser(format: ImportFormat, opts: ParserOptions): StreamParser {
  const reader = formatModule(format).reader;
  if (reader.kind !== 'stream') throw new ImportError(opts.file, null, `no streaming parser for format ${format}`);
  return reader.parser(opts);
}
