import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDb, type Db } from '../../src/main/lab/store/db';
import { createDataset } from '../../src/main/lab/store/datasets';
import { upsertDevice } from '../../src/main/lab/store/devices';
import { SampleWriter, streamFor } from '../../src/main/lab/store/sample-blocks';
import { streamRanges } from '../../src/main/lab/store/sample-stream';
import { readSamplePage, type SamplePosition } from '../../src/main/lab/store/sample-page';
import type { DeviceInfo } from '../../src/shared/device';

const gpu = (index: number) =>
  ({ id: `sim:${index}`, index, backend: 'sim', kind: 'gpu', name: 'G', vendor: 'v', simulated: true, uuid: `U${index}`, pci_bus_id: null, driver: null, vbios: null, limit_w: 1, enforced_limit_w: 1, min_limit_w: 1, max_limit_w: 1, default_limit_w: 1, sensors: { power_kinds: ['instant'], energy_counter: false, energy_counter_check: 'absent', update_period_ms: null } }) as DeviceInfo;

let db: Db;
let datasetId = 0;
beforeEach(() => {
  db = openDb(':memory:');
  datasetId = createDataset(db, { name: 'd', source: 's', format: 'nvidia-smi' });
  const w = new SampleWriter(db);
  for (const index of [0, 1]) {
    const stream = streamFor(db, { dataset_id: datasetId }, upsertDevice(db, 'h', gpu(index)));
    w.append(stream, { n: 10, t: Float64Array.from({ length: 10 }, (_, i) => 100 + i), cols: { power_w: Float64Array.from({ length: 10 }, (_, i) => index * 100 + i) }, power_kind: 'instant' });
  }
  w.close();
});
afterEach(() => db.close());

function pages(limit: number): { sizes: number[]; power: number[] } {
  const ranges = streamRanges(db, { datasetId });
  const sizes: number[] = [];
  const power: number[] = [];
  let pos: SamplePosition | null = { d: 0, t: null, k: 0 };
  while (pos) {
    const p = readSamplePage(db, ranges, pos, limit);
    sizes.push(p.samples.length);
    power.push(...p.samples.map((s) => s.power_w!));
    pos = p.next;
  }
  return { sizes, power };
}

describe('readSamplePage', () => {
  const all = [...Array.from({ length: 10 }, (_, i) => i), ...Array.from({ length: 10 }, (_, i) => 100 + i)];
  it('ends with next null exactly when the last sample is returned, also when a page ends at a device boundary', () => {
    expect(pages(10)).toEqual({ sizes: [10, 10], power: all });
    expect(pages(20)).toEqual({ sizes: [20], power: all });
    expect(pages(5)).toEqual({ sizes: [5, 5, 5, 5], power: all });
    expect(pages(7)).toEqual({ sizes: [7, 7, 6], power: all });
    expect(pages(1000)).toEqual({ sizes: [20], power: all });
  });

  it('an empty selection is one empty last page', () => {
    expect(readSamplePage(db, [], { d: 0, t: null, k: 0 }, 10)).toEqual({ samples: [], next: null });
    expect(readSamplePage(db, streamRanges(db, { datasetId, from: 500, to: 600 }), { d: 0, t: null, k: 0 }, 10)).toEqual({ samples: [], next: null });
  });
});
