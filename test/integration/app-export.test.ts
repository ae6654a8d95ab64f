// The app's Export button (exportForApp, behind the engine's exportFile): each item of a sweep, a comparison and a
// dataset, from real recorded sweeps, with the engine's own numbers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/tmp';
import { labEnv, recordSimSweeps } from '../helpers/sim-sweep';
import { openDb, type Db } from '../../src/main/lab/store/db';
import { exportForApp } from '../../src/main/lab/exporters/app-export';
import { runsOfSweep } from '../../src/main/lab/store/sweeps';
import { createDataset, addSegment } from '../../src/main/lab/store/datasets';
import { devicesOfRun } from '../../src/main/lab/store/devices';
import { samplesOfRun, writeSamples } from '../../src/main/lab/store/samples';
import { countSamples } from '../../src/main/lab/store/sample-stream';
import { exportList, type ExportSubject } from '../../src/shared/exports';
import { analyzeStoredSweep } from '../../src/main/lab/analysis/analyze-stored';

const tmp = tempDir('caplab-app-export-');
afterAll(() => tmp.cleanup());
let ids: number[] = [];
let db: Db;
let datasetId = 0;
const noPrinter = { printPdf: async () => Promise.reject(new Error('no printer in this test')) };
const text = (f: { data_base64: string }) => Buffer.from(f.data_base64, 'base64').toString('utf8');

beforeAll(async () => {
  ids = await recordSimSweeps(tmp.dir, ['h100-sxm', 'h200'], { caps: [300, 500] });
  db = openDb(labEnv(tmp.dir).CAPLAB_DB);
  // A dataset made of the first sweep's samples, one segment per run window (as an import of per-cap logs gives).
  datasetId = createDataset(db, { name: 'per-cap logs', source: '/logs', format: 'test' });
  for (const run of runsOfSweep(db, ids[0]!)) {
    for (const d of devicesOfRun(db, run.id)) writeSamples(db, { dataset_id: datasetId }, d.id, samplesOfRun(db, run.id, d.id));
    addSegment(db, { dataset_id: datasetId, start: run.measure_start!, end: run.measure_end!, workload: 'vit_l_16', cap_w: run.cap_w, units: 'images', units_in_window: run.throughput! * (run.measure_end! - run.measure_start!), repetition: run.repetition });
  }
}, 300_000);
afterAll(() => db?.close());

describe('the app’s Export of a comparison and a dataset', () => {
  it('exports a comparison’s runs and per-cap tables for every compared sweep, and the comparison as JSON', async () => {
    const runs = await exportForApp(db, { sweep_id: ids[0], compare_ids: [ids[1]!], format: 'runs-csv' }, noPrinter);
    expect(runs.filename).toBe(`caplab-compare-${ids[0]}-${ids[1]}-runs.csv`);
    const lines = text(runs).trim().split('\n');
    expect(lines[0]!.startsWith('sweep_id,run_id,')).toBe(true);
    expect(lines).toHaveLength(1 + runsOfSweep(db, ids[0]!).length + runsOfSweep(db, ids[1]!).length);
    expect(new Set(lines.slice(1).map((l) => Number(l.split(',')[0])))).toEqual(new Set(ids));
    const caps = text(await exportForApp(db, { sweep_id: ids[0], compare_ids: [ids[1]!], format: 'caps-csv' }, noPrinter)).trim().split('\n');
    expect(caps).toHaveLength(1 + 2 * 2);
    const json = JSON.parse(text(await exportForApp(db, { sweep_id: ids[0], compare_ids: [ids[1]!], format: 'json' }, noPrinter)));
    expect(json.sweeps.map((s: { label: string }) => s.label)).toEqual([expect.stringContaining(`#${ids[0]}`), expect.stringContaining(`#${ids[1]}`)]);
    await expect(exportForApp(db, { sweep_id: ids[0], compare_ids: [ids[1]!], format: 'samples-csv' }, noPrinter)).rejects.toThrow(/not an export of a comparison/);
  });

  it('with the page’s tariff the per-cap CSV (sweep and dataset) ends with the cost columns and the HTML report has the section', async () => {
    const tariff = { price_per_mwh: 100, carbon_g_per_kwh: 400, currency: 'EUR' };
    const a = analyzeStoredSweep(db, ids[0]!, { tariff }).result;
    const [head, ...rows] = text(await exportForApp(db, { sweep_id: ids[0], format: 'caps-csv', tariff }, noPrinter)).trim().split('\n');
    const col = head!.split(',').indexOf('cost_per_million_units [EUR]');
    expect(col).toBeGreaterThan(0);
    expect(rows.map((r) => Number(r.split(',')[col]))).toEqual(a.cost!.groups[0]!.caps.map((c) => c.cost_per_million_units));
    const ds = text(await exportForApp(db, { dataset_id: datasetId, format: 'caps-csv', tariff }, noPrinter)).split('\n')[0]!;
    expect(ds).toContain('co2e_per_million_units [kg]');
    const html = text(await exportForApp(db, { sweep_id: ids[0], format: 'html', tariff }, noPrinter));
    expect(html).toContain('Cost and carbon');
    expect(html).toContain('100 EUR/MWh, 400 g CO2e/kWh');
    await expect(exportForApp(db, { sweep_id: ids[0], format: 'caps-csv', tariff: { currency: 'EUR' } }, noPrinter)).rejects.toThrow(/a tariff needs a price/);
  });

  it('exports a dataset’s segments, per-cap table and every sample, and refuses what is not an export of it', async () => {
    const seg = text(await exportForApp(db, { dataset_id: datasetId, format: 'segments-csv' }, noPrinter)).trim().split('\n');
    expect(seg[0]).toMatch(/^segment_id,label,origin,start \[s since epoch\],/);
    expect(seg).toHaveLength(1 + runsOfSweep(db, ids[0]!).length);
    expect(text(await exportForApp(db, { dataset_id: datasetId, format: 'caps-csv' }, noPrinter)).trim().split('\n')).toHaveLength(1 + 2);
    const samples = await exportForApp(db, { dataset_id: datasetId, format: 'samples-csv' }, noPrinter);
    expect(samples.filename).toBe(`caplab-dataset-${datasetId}-samples.csv`);
    expect(text(samples).trim().split('\n')).toHaveLength(1 + countSamples(db, { datasetId }));
    const parquet = await exportForApp(db, { dataset_id: datasetId, format: 'samples-parquet' }, noPrinter);
    expect(Buffer.from(parquet.data_base64, 'base64').subarray(0, 4).toString()).toBe('PAR1');
    await expect(exportForApp(db, { dataset_id: datasetId, format: 'runs-csv' }, noPrinter)).rejects.toThrow(/not an export of a dataset/);
    await expect(exportForApp(db, { dataset_id: 999, format: 'pdf' }, noPrinter)).rejects.toThrow(/no dataset 999/);
    await expect(exportForApp(db, { format: 'pdf' }, noPrinter)).rejects.toThrow(/give either sweep_id or dataset_id/);
  });

  it('every format of the export list is written for each subject it is labelled for, and refused for the others', async () => {
    // A printer that hands back what it was given, so the PDF's wiring shows (real printing: test/e2e/export.spec.ts).
    const printed: { html: string; paper: string }[] = [];
    const printer = { printPdf: async () => async (html: string, o: { paper: string }) => (printed.push({ html, paper: o.paper }), new TextEncoder().encode(`%PDF ${html.length}`)) };
    const requests: Record<ExportSubject, { req: object; stem: string }> = {
      sweep: { req: { sweep_id: ids[0] }, stem: `caplab-sweep-${ids[0]}` },
      compare: { req: { sweep_id: ids[0], compare_ids: [ids[1]!] }, stem: `caplab-compare-${ids[0]}-${ids[1]}` },
      dataset: { req: { dataset_id: datasetId }, stem: `caplab-dataset-${datasetId}` },
    };
    for (const e of exportList) {
      for (const subject of Object.keys(requests) as ExportSubject[]) {
        const { req, stem } = requests[subject];
        const ask = exportForApp(db, { ...req, format: e.id, paper: 'letter' }, printer);
        if (!(e.labels as Record<string, string | undefined>)[subject]) {
          await expect(ask, `${e.id} of ${subject}`).rejects.toThrow(new RegExp(`^${e.id} is not an export of a`));
          continue;
        }
        // These sweeps are not tuning sessions (test/integration/tune-report-export.test.ts exports one).
        if (e.id === 'tune-csv') {
          await expect(ask).rejects.toThrow(`sweep ${ids[0]} is not a tuning session`);
          continue;
        }
        const f = await ask;
        expect(f.filename.startsWith(stem) && f.filename.endsWith(`.${e.ext}`), `${e.id} of ${subject}: ${f.filename}`).toBe(true);
        expect(f.mime).toBe(e.mime);
        expect(f.bytes).toBe(Buffer.from(f.data_base64, 'base64').length);
        expect(f.bytes).toBeGreaterThan(0);
      }
    }
    expect(printed).toHaveLength(3);
    for (const p of printed) expect(p).toEqual({ html: expect.stringContaining('<html'), paper: 'letter' });
  }, 120_000);
});
