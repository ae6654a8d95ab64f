// One page of stored samples over a list of stream ranges (device after device, t ascending within a device),
// decoding only the blocks the page needs. A position is (range, t, k): the page starts at the range's samples with
// time >= t, skipping the first k of them (samples sharing one timestamp are never lost or repeated).
import type { Db } from './db';
import { readWindow } from './sample-blocks';
import type { StreamRange } from './sample-stream';
import { readingFields, sensorKindAt, type SampleColumns } from '../../../shared/sample';
import type { PagedSample } from '../../../shared/api';

export interface SamplePosition {
  /** Index into the ranges. */
  d: number;
  /** Start time within that range; null: its start. */
  t: number | null;
  /** Samples at time `t` already returned. */
  k: number;
}

/** The first `want` samples of a stream at or after `from` (up to `to`), and whether any come after them. */
function readFrom(db: Db, stream: number, from: number, to: number, want: number): { cols: SampleColumns; more: boolean } {
  const blocks = db.prepare('SELECT t0, t1, n FROM sample_blocks WHERE stream_id = ? AND t1 >= ? AND t0 <= ? ORDER BY t0');
  // The first block may hold samples before `from`: read one block more than `want` needs, more again if short.
  for (let extra = 1024; ; extra *= 4) {
    let count = 0;
    let hi = -Infinity;
    let cut = false;
    for (const b of blocks.iterate(stream, from, to) as IterableIterator<{ t0: number; t1: number; n: number }>) {
      // Blocks overlapping the ones taken (out-of-order arrivals) are read with them.
      if (count >= want + extra && b.t0 > hi) {
        cut = true;
        break;
      }
      count += b.n;
      hi = Math.max(hi, b.t1);
    }
    const end = cut ? Math.min(hi, to) : to;
    const cols = readWindow(db, stream, from, end);
    if (cols.n >= want || !cut) return { cols, more: cut || cols.n > want };
  }
}

function rowAt(c: SampleColumns, i: number, device_key: string): PagedSample {
  const row: Record<string, unknown> = { device_key, t: c.t[i]!, power_kind: typeof c.power_kind === 'string' ? c.power_kind : sensorKindAt(c.power_kind![i]!) };
  for (const f of readingFields) {
    const v = c.cols[f]?.[i] ?? NaN;
    row[f] = v === v ? v : null;
  }
  return row as PagedSample;
}

/** Up to `limit` samples from `pos` on, and the position after them (null: nothing is left). */
export function readSamplePage(db: Db, ranges: readonly StreamRange[], pos: SamplePosition, limit: number): { samples: PagedSample[]; next: SamplePosition | null } {
  const samples: PagedSample[] = [];
  let { d, t, k } = pos;
  while (d < ranges.length) {
    const r = ranges[d]!;
    const from = t ?? r.from;
    const need = limit - samples.length;
    const { cols, more } = readFrom(db, r.stream, from, r.to, k + need);
    const end = Math.min(cols.n, k + need);
    for (let i = k; i < end; i++) samples.push(rowAt(cols, i, r.device));
    if (samples.length < limit || (!more && end === cols.n)) {
      // This range is done: go on with the next (or stop with a full page, saying where the next one starts).
      d++;
      t = null;
      k = 0;
      if (samples.length === limit) return { samples, next: d < ranges.length ? { d, t: null, k: 0 } : null };
      continue;
    }
    // The page is full inside this range: the next one starts after the last sample returned.
    const lastT = cols.t[end - 1]!;
    let same = 0;
    for (let i = end - 1; i >= 0 && cols.t[i] === lastT; i--) same++;
    return { samples, next: { d, t: lastT, k: same } };
  }
  return { samples, next: null };
}
