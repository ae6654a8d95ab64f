// Sources: a dataset segment holding the same samples as a CapLab run is analysed exactly like that run, on a real
// database (the 0.1.0 fixture, migrated: a nvidia-smi sweep with RAPL CPU energy measured).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { Engine } from '../../src/main/lab/engine';
import { addSegment, createDataset, insertDatasetMetrics } from '../../src/main/lab/store/datasets';
import { readWindow, SampleWriter, streamFor, streamsOf } from '../../src/main/lab/store/sample-blocks';
import { getRun } from '../../src/main/lab/store/sweeps';
import { getDevice } from '../../src/main/lab/store/devices';
import { insertDatasetDevice } from '../../src/main/lab/store/dataset-records';
import { tempDir } from '../helpers/tmp';

const tmp = tempDir();
let engine: Engine;
let segmentId = 0;
let inline: { dataset_id: number; start: number; end: number };
const RUN = 7;

beforeAll(async () => {
  const file = join(tmp.dir, 'lab.db');
  copyFileSync(join(process.cwd(), 'test/fixtures/release-0.1.0/lab.db'), file);
  engine = await Engine.open({ dbPath: file, env: { ...process.env, CAPLAB_DATA_DIR: tmp.dir } });
  const db = engine.db;
  const run = getRun(db, RUN)!;
  // "Import" the run's GPU and CPU samples as a dataset, as an importer would: columnar batches per device.
  const dataset = createDataset(db, { name: 'imported log', source: 'test', format: 'test' });
  const writer = new SampleWriter(db);
  for (const [i, s] of streamsOf(db, { sweep_id: run.sweep_id }).entries()) {
    // Imported devices get rows of their own (host dataset:<id>), as the importers register them.
    const d = getDevice(db, s.device_row)!;
    const row = insertDatasetDevice(db, dataset, 'test', { key: d.device_key, kind: d.kind === 'cpu' ? 'cpu' : 'gpu', name: d.name, index: d.idx, uuid: null, pci_bus_id: null, rows: 0, max_gap_s: 0 }, i);
    writer.append(streamFor(db, { dataset_id: dataset }, row), readWindow(db, s.stream_id, run.started_at!, run.ended_at!));
  }
  writer.close();
  const gpus = 1;
  const units = run.throughput! * gpus * (run.measure_end! - run.measure_start!);
  insertDatasetMetrics(db, dataset, [{ t: run.measure_end!, name: 'units', value: units }]);
  segmentId = addSegment(db, { dataset_id: dataset, start: run.measure_start!, end: run.measure_end!, workload: 'command', cap_w: 700, units: 'images', units_in_window: units });
  inline = { dataset_id: dataset, start: run.measure_start!, end: run.measure_end! };
});
afterAll(async () => {
  await engine.close();
  tmp.cleanup();
});

describe('analyzeSources', () => {
  it('gives a segment the figures of the run whose samples it holds (GPU energy, measured CPU energy, efficiency)', async () => {
    const r = await engine.analyzeSources({ sources: [{ kind: 'run', run_id: RUN }, { kind: 'segment', segment_id: segmentId }] });
    const [run, seg] = r.runs;
    expect(run!.source).toEqual({ kind: 'run', id: RUN });
    expect(seg!.source).toEqual({ kind: 'segment', id: segmentId });
    expect(seg!.run_id).toBe(-segmentId);
    expect(seg!.node!.source).toBe('measured-cpu');
    for (const k of ['throughput', 'gpu_energy_j', 'efficiency', 'mean_power_w', 'node_power_w'] as const) expect(seg![k], k).toBeCloseTo(run![k]!, 9);
    expect(seg!.node!.cpu_j).toBeCloseTo(run!.node!.cpu_j!, 9);
    expect(r.groups).toHaveLength(1);
    // Same workload, model and cap: one group, both counted at that cap (usable for statistics is the steady-state
    // heuristics' call: the segment has no warm-up samples before its window).
    expect(r.groups[0]!.caps[0]!.run_ids).toEqual([RUN, -segmentId]);
  });

  it('takes the cap from the samples and the units from the dataset metrics when a segment does not say them', async () => {
    const r = await engine.analyzeSources({ sources: [{ kind: 'segment', ...inline }] });
    const seg = r.runs[0]!;
    expect(seg.cap_w).toBe(700);
    expect(seg.workload).toBe('imported log');
    expect(seg.throughput).toBeGreaterThan(0);
  });

  it('energy over a time range reads one dataset\'s samples when asked (the run\'s GPU energy, from the copy)', async () => {
    const run = getRun(engine.db, RUN)!;
    const r = await engine.energyInRange({ from: inline.start, to: inline.end, dataset_id: inline.dataset_id });
    expect(r.devices).toHaveLength(1);
    expect(r.energy_j).toBeCloseTo(run.energy_j!, 6);
  });

  it('names the source it cannot read', async () => {
    await expect(engine.analyzeSources({ sources: [{ kind: 'segment', segment_id: 999 }] })).rejects.toThrow(/no dataset segment 999/);
    await expect(engine.analyzeSources({ sources: [{ kind: 'run', run_id: 999 }] })).rejects.toThrow(/no run 999/);
    await expect(engine.analyzeSources({ sources: [{ kind: 'segment', ...inline, device_keys: ['nope'] }] })).rejects.toThrow(/has no samples of nope/);
  });
});
