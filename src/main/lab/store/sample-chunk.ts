// One stored block decoded and trimmed to a time range. Kept apart from the SQLite reads so that export worker
// threads can decode blocks without loading the database module.
import { decodeBlock } from './block-codec';
import { scaleOf, type ReadingField, type SampleColumns, type SampleField } from '../../../shared/sample';

/** One decoded piece of a stream: columns, the rows [a, b) inside the range, and the device key. */
export interface SampleChunk {
  device: string;
  cols: SampleColumns;
  a: number;
  b: number;
}

/** The reading columns among fields (time and the sensor kind are always decoded). */
export const readingsOf = (fields: readonly SampleField[]): ReadingField[] => fields.filter((f): f is ReadingField => f !== 't' && f !== 'power_kind');

/** Decodes a block (only `readings`) and finds its rows inside [from, to]; null when none are. */
export function decodeChunk(block: { device: string; data: Uint8Array; from: number; to: number }, readings: readonly ReadingField[], quantised: boolean): SampleChunk | null {
  const cols = decodeBlock(block.data, readings, quantised);
  const k = quantised ? scaleOf('t') : 1;
  let a = 0;
  while (a < cols.n && cols.t[a]! / k < block.from) a++;
  let b = cols.n;
  while (b > a && cols.t[b - 1]! / k > block.to) b--;
  return b > a ? { device: block.device, cols, a, b } : null;
}
