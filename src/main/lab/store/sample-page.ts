// One page of stored samples over a list of stream ranges (device after device, t ascending within a device),
// decoding only the blocks the page needs. A position is (range, t, k): the page starts at the range's samples with
// time >= t, skipping the first k of them (samples sharing one timestamp are never lost or repeated).
import type { Db } from './db';
import { readWindow } from './sample-blocks';
import type { StreamRange } from './sample-stream';
import { readingFields, sensorKindAt, type SampleColumns } from '../../../shared/sample';
import type { PagedSample } from '../../../shared/api/sweeps';

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
  // In the index's order (t1), so a page visits only its own blocks' metadata, not every block after it.
  const blocks = db.prepare('SELECT t1, n FROM sample_blocks WHERE stream_id = ? AND t1 >= ? AND t0 <= ? ORDER BY t1');
  // The first block may hold samples before `from`: take one block more than `want` needs, more again if short.
  for (let extra = 1024; ; extra *= 4) {
    let count = 0;
    let hi = -Infinity;
    let cut = false;
    for (const b of blocks.iterate(stream, from, to) as IterableIterator<{ t1: number; n: number }>) {
      if (count >= want + extra) {
        cut = true;
        break;
      }
      count += b.n;
      hi = b.t1;
    }
    // Every sample in [from, hi] comes back, also those of blocks overlapping the ones counted.
    const cols = readWindow(db, stream, from, cut ? Math.min(hi, to) : to);
    if (cols.n >= want || !cut) return { cols, more: cut || cols.n > want };
  }
}

/** Every row starts from one template, so all rows share one shape (fast to build and to serialise). */
const rowTemplate = { device_key: '', t: 0, power_kind: 'instant', ...Object.fromEntries(readingFields.map((f) => [f, null])) } as PagedSample;

/** Rows [a, b) of decoded columns as paged samples of one device. */
function rowsOf(c: SampleColumns, a: number, b: number, device_key: string, out: PagedSample[]): void {
  const present = readingFields.filter((f) => c.cols[f]);
  for (let i = a; i < b; i++) {
    const r = { ...rowTemplate, device_key, t: c.t[i]!, power_kind: typeof c.power_kind === 'string' ? c.power_kind : sensorKindAt(c.power_kind![i]!) } as Record<string, unknown>;
    for (const f of present) {
      const v = c.cols[f]![i]!;
      r[f] = v === v ? v : null;
    }
    out.push(r as PagedSample);
  }
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
    rowsOf(cols, k, end, r.device, samples);
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
