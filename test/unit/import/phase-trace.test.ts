// The import's load phases come from a trace binned while the batches stream past: GPUs (else node-level power)
// only, summed over devices, utilisation where no power was logged, each file counted once it is kept.
import { describe, expect, it } from 'vitest';
import { BatchBuilder, type ColumnBatch } from '../../../src/core/import/batch';
import type { ImportDevice } from '../../../src/shared/dataset';
import { PhaseTrace } from '../../../src/main/lab/datasets/phase-trace';

const T0 = 1.8e9;
const device = (key: string, kind: ImportDevice['kind']): ImportDevice => ({ key, kind, index: null, name: null, uuid: null, pci_bus_id: null, rows: 0, max_gap_s: 0 });
const GPUS = [device('gpu:0', 'gpu'), device('gpu:1', 'gpu'), device('cpu:0', 'cpu')];
/** Idle (100 W a GPU) for 60 s, loaded (500 W) for 120 s, idle for 60 s, at 10 Hz; the CPU does the opposite. */
const level = (x: number) => (x < 60 || x >= 180 ? 100 : 500);

function batches(channel: 'power_avg_w' | 'util_gpu', from = 0, to = 240): ColumnBatch[] {
  const out: ColumnBatch[] = [];
  const b = new BatchBuilder((x) => out.push(x), 1000);
  for (let i = from * 10; i < to * 10; i++) {
    const x = i / 10;
    b.set(b.row(T0 + x, 0), channel, channel === 'util_gpu' ? level(x) / 5 : level(x));
    b.set(b.row(T0 + x, 1), channel, channel === 'util_gpu' ? level(x) / 5 : level(x) + 20);
    b.set(b.row(T0 + x, 2), channel, 600 - level(x));
  }
  b.flush();
  return out;
}

const span = { start: T0, end: T0 + 239.9 };
const rounded = (ps: { start: number; end: number; mean: number; unit: string }[]) =>
  ps.map((p) => ({ start: Math.round(p.start - T0), end: Math.round(p.end - T0), mean: Math.round(p.mean), unit: p.unit }));

describe('PhaseTrace (phases found without reading the import back)', () => {
  it('finds idle / load / idle in the GPUs summed power, ignoring the CPU, within the dataset span', () => {
    const file = new PhaseTrace();
    for (const b of batches('power_avg_w')) file.add(b, GPUS);
    const trace = new PhaseTrace();
    trace.merge(file);
    // Two GPU streams: the summed power is twice the mean reading (100 + 120, 500 + 520).
    expect(rounded(trace.phases('gpu', 2, span))).toEqual([
      { start: 0, end: 60, mean: 220, unit: 'W' },
      { start: 60, end: 180, mean: 1020, unit: 'W' },
      { start: 180, end: 240, mean: 220, unit: 'W' },
    ]);
    expect(trace.phases('cpu', 1, span)).toEqual([]);
  });

  it('uses utilisation where no power was logged', () => {
    const trace = new PhaseTrace();
    for (const b of batches('util_gpu')) trace.add(b, GPUS);
    expect(rounded(trace.phases('gpu', 2, span)).map((p) => [p.mean, p.unit])).toEqual([
      [20, '%'],
      [100, '%'],
      [20, '%'],
    ]);
  });

  it('reads power wherever a kind logged any, even where its utilisation came first', () => {
    const trace = new PhaseTrace();
    for (const b of batches('util_gpu', 0, 120)) trace.add(b, GPUS);
    for (const b of batches('power_avg_w', 120, 240)) trace.add(b, GPUS);
    expect(rounded(trace.phases('gpu', 2, span)).map((p) => [p.start, p.mean, p.unit])).toEqual([
      [120, 1020, 'W'],
      [180, 220, 'W'],
    ]);
  });

  it('counts a file only once merged: a duplicate file left out leaves the phases as they were', () => {
    const kept = new PhaseTrace();
    for (const b of batches('power_avg_w', 0, 120)) kept.add(b, GPUS);
    const later = new PhaseTrace();
    for (const b of batches('power_avg_w', 120, 240)) later.add(b, GPUS);
    const trace = new PhaseTrace();
    trace.merge(kept);
    const firstHalf = { start: T0, end: T0 + 119.9 };
    expect(rounded(trace.phases('gpu', 2, firstHalf)).map((p) => p.mean)).toEqual([220, 1020]);
    trace.merge(later);
    expect(rounded(trace.phases('gpu', 2, span)).map((p) => p.mean)).toEqual([220, 1020, 220]);
  });
});
