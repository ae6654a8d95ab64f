// The block sample store on real SQLite files: round trips at the stored resolution, nulls and mixed sensor kinds,
// out-of-order live readings, open blocks rewritten in place, summary decimation against the exact one.
import { afterAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { openDb, type Db } from '../../../src/main/lab/store/db';
import { upsertDevice } from '../../../src/main/lab/store/devices';
import { createSweep } from '../../../src/main/lab/store/sweeps';
import { decimateField, forEachInWindow, readSamples, readWindow, SampleWriter, streamFor, streamExtent } from '../../../src/main/lab/store/sample-blocks';
import { CodecError, decodeBlock, encodeBlock } from '../../../src/main/lab/store/block-codec';
import { decimateMinMax } from '../../../src/core/decimate';
import { Plan } from '../../../src/shared/plan';
import type { DeviceInfo } from '../../../src/shared/device';
import type { Sample } from '../../../src/shared/sample';
import { tempDir } from '../../helpers/tmp';

const tmp = tempDir();
afterAll(() => tmp.cleanup());
const device: DeviceInfo = {
  id: 'nvml:0', index: 0, backend: 'nvml', kind: 'gpu', name: 'H200', vendor: 'NVIDIA', simulated: false, uuid: 'GPU-1', pci_bus_id: null, driver: null,
  vbios: null, limit_w: 700, enforced_limit_w: 700, min_limit_w: 200, max_limit_w: 700, default_limit_w: 700,
  sensors: { power_kinds: ['instant'], energy_counter: true, energy_counter_check: 'ok', update_period_ms: 100 },
};

function freshStream(name: string): { db: Db; stream: number } {
  const db = openDb(join(tmp.dir, `${name}.db`));
  const plan = Plan.parse({ name, workloads: [{ id: 'vit_l_16' }], caps: [300] });
  const { sweepId } = createSweep(db, { name, plan, host: 'h', backend: 'nvml', simulated: false }, []);
  return { db, stream: streamFor(db, { sweep_id: sweepId }, upsertDevice(db, 'h', device)) };
}

const row = (t: number, extra: Partial<Sample> = {}): Omit<Sample, 'device_id'> => ({
  t, power_w: 300.123, power_kind: 'instant', power_avg_w: null, energy_mj: 1e9 + t * 3e5, sm_clock_mhz: 1980, mem_clock_mhz: 3201, temp_c: 61.5,
  util_gpu: 97, util_mem: 43, mem_used_mb: 81234, limit_w: 700, throttle_reasons: 4, ...extra,
});

describe('block codec', () => {
  it('round-trips values at the spec resolution, nulls and per-sample kinds', () => {
    const rows = Array.from({ length: 300 }, (_, i) =>
      row(1.8e9 + i * 0.1 + 0.0000004, { power_w: i % 3 === 0 ? null : 250 + Math.sin(i) * 40, power_kind: i % 5 === 0 ? 'counter' : 'instant', temp_c: i % 2 ? 60.04 : null }),
    );
    const c = readBack(rows);
    expect(c.length).toBe(300);
    for (const [i, r] of c.entries()) {
      const src = rows[i]!;
      expect(r.t).toBeCloseTo(src.t, 5);
      expect(r.power_kind).toBe(src.power_kind);
      if (src.power_w === null) expect(r.power_w).toBeNull();
      else expect(Math.abs(r.power_w! - src.power_w)).toBeLessThanOrEqual(0.0005);
      expect(r.temp_c).toBe(src.temp_c === null ? null : 60);
      expect(r.energy_mj).toBe(Math.round(src.energy_mj!));
    }
  });

  it('refuses rows out of time order and times that are not numbers, naming the row', () => {
    const t = new Float64Array([3, 2]);
    expect(() => encodeBlock({ n: 2, t, cols: {} })).toThrow(CodecError);
    expect(() => encodeBlock({ n: 2, t, cols: {} })).toThrow(/not in time order at row 1/);
    expect(() => encodeBlock({ n: 1, t: new Float64Array([NaN]), cols: {} })).toThrow(/sample 0 has no valid time/);
  });

  it('decodes only the columns asked for', () => {
    const b = encodeBlock({ n: 2, t: new Float64Array([1, 2]), cols: { power_w: new Float64Array([1, 2]), temp_c: new Float64Array([3, 4]) } });
    expect(Object.keys(decodeBlock(b.data, ['power_w']).cols)).toEqual(['power_w']);
  });
});

function readBack(rows: Omit<Sample, 'device_id'>[]): Omit<Sample, 'device_id'>[] {
  const { db, stream } = freshStream(`rt-${Math.random().toString(36).slice(2)}`);
  const w = new SampleWriter(db, 64);
  w.appendRows(stream, rows);
  w.close();
  const out = readSamples(db, stream, -Infinity, Infinity);
  db.close();
  return out;
}

describe('sample writer', () => {
  it('rewrites the open block in place on each flush and sorts late readings into it', () => {
    const { db, stream } = freshStream('live');
    const w = new SampleWriter(db, 100);
    for (let flush = 0; flush < 5; flush++) {
      // A counter reading stamped slightly before the sampler's last one arrives after it.
      w.appendRows(stream, [row(flush + 0.1), row(flush + 0.3), row(flush + 0.2, { power_w: null, power_kind: 'counter' })]);
      w.flush();
    }
    expect((db.prepare('SELECT COUNT(*) AS n FROM sample_blocks').get() as { n: number }).n).toBe(1);
    const got = readSamples(db, stream, 0, 10);
    expect(got.map((r) => r.t)).toEqual([0.1, 0.2, 0.3, 1.1, 1.2, 1.3, 2.1, 2.2, 2.3, 3.1, 3.2, 3.3, 4.1, 4.2, 4.3]);
    expect(got[1]).toMatchObject({ power_kind: 'counter', power_w: null });
    expect(streamExtent(db, stream)).toEqual({ n: 15, t0: 0.1, t1: 4.3 });
    db.close();
  });

  it('bulk batches become full blocks plus one open block, readable by window', () => {
    const { db, stream } = freshStream('bulk');
    const w = new SampleWriter(db, 1000);
    const n = 25_500;
    const t = Float64Array.from({ length: n }, (_, i) => 1000 + i * 0.1);
    const power = Float64Array.from({ length: n }, (_, i) => 200 + (i % 100));
    for (let i = 0; i < n; i += 7000) w.append(stream, { n: Math.min(7000, n - i), t: t.subarray(i, i + 7000), cols: { power_w: power.subarray(i, i + 7000) }, power_kind: 'instant' });
    w.close();
    expect((db.prepare('SELECT COUNT(*) AS n FROM sample_blocks').get() as { n: number }).n).toBe(26);
    const win = readWindow(db, stream, 1100, 1200);
    expect(win.n).toBe(1001);
    expect(win.t[0]).toBeCloseTo(1100, 6);
    expect(win.cols.power_w![0]).toBe(200);
    expect(win.power_kind).toBe('instant');
    db.close();
  });
});

describe('decimation', () => {
  it('from block summaries keeps the envelope of the exact min/max decimation', () => {
    const { db, stream } = freshStream('decimate');
    const w = new SampleWriter(db, 50);
    const n = 100_000;
    const t = Float64Array.from({ length: n }, (_, i) => i * 0.1);
    const power = Float64Array.from({ length: n }, (_, i) => 300 + 100 * Math.sin(i / 500) + (i === 77_777 ? 250 : 0));
    w.append(stream, { n, t, cols: { power_w: power }, power_kind: 'instant' });
    w.close();
    const fromSummaries = decimateField(db, stream, 'power_w', 0, n * 0.1, 1000);
    const exact = decimateMinMax(t, power, 1000);
    expect(fromSummaries.t.length).toBeLessThanOrEqual(1000);
    expect(fromSummaries.t.length).toBeGreaterThan(900);
    const vals = fromSummaries.v as number[];
    // The spike survives, and the overall envelope is the exact one (to the stored 1 mW).
    expect(Math.max(...vals)).toBeCloseTo(Math.max(...(exact.v as number[])), 2);
    expect(Math.min(...vals)).toBeCloseTo(Math.min(...(exact.v as number[])), 2);
    expect([...fromSummaries.t].every((x, i, a) => i === 0 || x >= a[i - 1]!)).toBe(true);
    // A window with fewer blocks than buckets is decimated exactly from the samples.
    const small = decimateField(db, stream, 'power_w', 100, 200, 2000);
    expect(small.t.length).toBe(1001);
    db.close();
  });
});

describe('forEachInWindow', () => {
  it('visits the samples readWindow gives that hold the field, in its order, also where blocks overlap in time', () => {
    const { db, stream } = freshStream('each-in-window');
    const w = new SampleWriter(db, 64);
    w.appendRows(stream, Array.from({ length: 300 }, (_, i) => row(1000 + i, { power_w: i % 7 === 0 ? null : 100 + i })));
    // A later batch that goes back in time: its blocks overlap the earlier ones.
    w.appendRows(stream, Array.from({ length: 100 }, (_, i) => row(1100.5 + i, { power_w: 500 + i })));
    w.flush();
    for (const [from, to] of [[1000, 1050], [1090, 1210], [0, 5000], [1300.1, 1300.2]] as const) {
      const seen: [number, number][] = [];
      forEachInWindow(db, stream, from, to, 'power_w', (t, v) => seen.push([t, v]));
      const c = readWindow(db, stream, from, to, ['power_w']);
      const expected: [number, number][] = [];
      for (let i = 0; i < c.n; i++) if (!Number.isNaN(c.cols.power_w![i])) expected.push([c.t[i]!, c.cols.power_w![i]!]);
      expect(seen).toEqual(expected);
    }
    const all: number[] = [];
    forEachInWindow(db, stream, 0, 5000, 'power_w', (t) => all.push(t));
    expect(all.length).toBe(300 - 43 + 100);
    db.close();
  });
});
