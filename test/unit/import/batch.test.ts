// Batches are filled row by row; a spare batch handed back by the importing thread is filled again in place of a
// new one, and must then read exactly as a new one would (stale values from its previous use gone).
import { describe, expect, it } from 'vitest';
import { BatchBuilder, batchBuffers, channelIndex, CHANNELS, type ColumnBatch } from '../../../src/core/import/batch';

describe('BatchBuilder', () => {
  it('fills a spare batch again: rows from 0, channels not set in the new rows missing (NaN)', () => {
    const emitted: ColumnBatch[] = [];
    const spares: ColumnBatch[] = [];
    const b = new BatchBuilder((x) => emitted.push(x), 2, () => spares.pop() ?? null);
    for (const [t, w] of [[1, 100], [2, 200], [3, 300]] as const) b.setAt(b.row(t, 0), channelIndex('power_avg_w'), w);
    const first = emitted[0]!;
    expect(first.n).toBe(2);
    // The receiver is done with the first batch and hands it back; the next batch (after row 3 and 4) reuses it.
    spares.push(first);
    b.set(b.row(4, 1), 'temp_c', 55);
    b.flush();
    b.set(b.row(5, 1), 'temp_c', 56);
    b.flush();
    const reused = emitted[2]!;
    expect(reused).toBe(first);
    expect(reused.n).toBe(1);
    expect(Array.from(reused.t.subarray(0, 1))).toEqual([5]);
    expect(reused.cols.temp_c[0]).toBe(56);
    for (const c of CHANNELS) if (c !== 'temp_c') expect(Array.from(reused.cols[c]), c).toEqual([NaN, NaN]);
  });

  it('holds a whole batch in one buffer, so posting it transfers one', () => {
    const b = BatchBuilder.alloc(8);
    expect(batchBuffers(b)).toHaveLength(1);
    b.t[7] = 1;
    b.device[7] = 3;
    for (const c of CHANNELS) b.cols[c][7] = channelIndex(c);
    // The views do not overlap: each keeps its own value.
    expect([b.t[7], b.device[7], ...CHANNELS.map((c) => b.cols[c][7])]).toEqual([1, 3, ...CHANNELS.map((_, k) => k)]);
  });
});
