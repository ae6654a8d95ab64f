// The import's load phases come from a trace binned while the batches stream past: GPUs (else node-level power)
// only, summed over devices, utilisation where no power was logged, each file counted once it is kept.
import { describe, expect, it } from 'vitest';
import { DENSE_AVERAGE_ALIGN_S } from '../../../src/core/analysis/average-power';
import { BatchBuilder, type ColumnBatch } from '../../../src/core/import/batch';
import type { ImportDevice } from '../../../src/shared/dataset';
import { PhaseTrace, phaseLevelWords } from '../../../src/main/lab/datasets/phase-trace';

const T0 = 1.8e9;
const device = (key: string, kind: ImportDevice['kind']): ImportDevice => ({ key, kind, index: null, name: null, uuid: null, pci_bus_id: null, rows: 0, max_gap_s: 0 });
const GPUS = [device('gpu:0', 'gpu'), device('gpu:1', 'gpu'), device('cpu:0', 'cpu')];
/** Idle (100 W a GPU) for 60 s, loaded (500 W) for 120 s, idle for 60 s, at 10 Hz; the CPU does the opposite. */
const level = (x: number): number => (x < 60 || x >= 180 ? 100 : 500);
/** The 1 s average of it as NVML reports it (the second before x, on nvidia-smi's time base). */
const averaged = (x: number) => Array.from({ length: 100 }, (_, k) => level(x + DENSE_AVERAGE_ALIGN_S - 1 + (k + 0.5) / 100)).reduce((a, b) => a + b) / 100;

function batches(channel: 'power_avg_w' | 'util_gpu', from = 0, to = 240): ColumnBatch[] {
  const out: ColumnBatch[] = [];
  const b = new BatchBuilder((x) => out.push(x), 1000);
  for (let i = from * 10; i < to * 10; i++) {
    const x = i / 10;
    b.set(b.row(T0 + x, 0), channel, channel === 'util_gpu' ? level(x) / 5 : averaged(x));
    b.set(b.row(T0 + x, 1), channel, channel === 'util_gpu' ? level(x) / 5 : averaged(x) + 20);
    b.set(b.row(T0 + x, 2), channel, 600 - level(x));
  }
  b.flush();
  return out;
}

const span = { start: T0, end: T0 + 239.9 };
const rounded = (ps: { start: number; end: number; mean: number; unit: string }[]) =>
  // Means to 10 W: a phase holds part of the 1 s ramps at its edges.
  ps.map((p) => ({ start: Math.round(p.start - T0), end: Math.round(p.end - T0), mean: Math.round(p.mean / 10) * 10, unit: p.unit }));

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

describe('PhaseTrace on the logs people have (issue #25)', () => {
  let seed = 3;
  const rnd = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
  const gauss = () => Math.sqrt(-2 * Math.log(rnd() + 1e-12)) * Math.cos(2 * Math.PI * rnd());
  const eight = Array.from({ length: 8 }, (_, g) => device(`gpu:${g}`, 'gpu'));

  /** nvidia-smi power.draw at -lms 100 from 8 GPUs: the 1 s average of a noisy true power, rows a few ms apart. */
  function averagedLog(seconds: number, truth: (x: number) => number): PhaseTrace {
    const out: ColumnBatch[] = [];
    const b = new BatchBuilder((x) => out.push(x), 4000);
    const hist = eight.map(() => [] as number[]);
    for (let i = 0; i < seconds * 10; i++)
      for (let g = 0; g < 8; g++) {
        const x = i / 10;
        const h = hist[g]!;
        h.push(truth(x) + (truth(x) > 200 ? 40 : 3) * gauss());
        if (h.length > 10) h.shift();
        b.set(b.row(T0 + x + g * 0.002, g), 'power_avg_w', h.reduce((s, v) => s + v, 0) / h.length);
      }
    b.flush();
    const trace = new PhaseTrace();
    for (const x of out) trace.add(x, eight);
    return trace;
  }

  it('cuts a 30 min log of 5 min load / 5 min idle on 8 GPUs into its 6 phases, at the steps', () => {
    const trace = averagedLog(1800, (x) => (Math.floor(x / 300) % 2 === 1 ? 610 : 120));
    const phases = trace.phases('gpu', 8, { start: T0, end: T0 + 1800 });
    // Before the fix: 68 segments (binary segmentation took the smooth noise of the 1 s average for level shifts).
    expect(phases).toHaveLength(6);
    // One bin of the streamed trace (1800 s in 8,192 bins: 0.25 s) is as close as it can place an edge.
    phases.slice(1).forEach((p, i) => expect(Math.abs(p.start - T0 - (i + 1) * 300)).toBeLessThanOrEqual(0.25));
    expect(phases.map((p) => Math.round(p.mean / 8 / 10) * 10)).toEqual([120, 610, 120, 610, 120, 610]);
  });

  it('starts the load of a small log whose step is at 6.0 s at 6.0 s, not at the 8 s minimum phase', () => {
    const trace = averagedLog(40, (x) => (x < 6 ? 120 : 610));
    const phases = trace.phases('gpu', 8, { start: T0, end: T0 + 40 });
    // The 6 s idle the log began in is shorter than a phase: left out, and the load still starts at its step.
    expect(phases).toHaveLength(1);
    expect(Math.abs(phases[0]!.start - T0 - 6)).toBeLessThanOrEqual(0.1);
  });

  it('says whether a level is per GPU or summed', () => {
    const ph = { start: 0, end: 10, mean: 4880, unit: 'W', devices: 8 };
    expect(phaseLevelWords(ph, 'gpu')).toBe('610 W per GPU, 4880 W summed over 8');
    expect(phaseLevelWords({ ...ph, mean: 610, devices: 1 }, 'gpu')).toBe('610 W');
    expect(phaseLevelWords({ ...ph, mean: 95, unit: '%' }, 'gpu')).toBe('95 % mean over 8 GPUs');
  });
});
