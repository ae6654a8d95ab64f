// The dataset report's own sections, end to end through the real CLI: `caplab import` of the H200 capture's logs
// (load/idle steps), `caplab report --dataset ID`, the PDF read back with pdftotext. Its energy by segment is what
// `caplab energy --dataset ID --segment N --json` gives, rounded as `caplab energy` prints it; its trace is a chart
// of at most the report's points; and a file uploaded through the engine is named as the user chose it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../helpers/cli';
import { tempDir } from '../helpers/tmp';
import { labEnv } from '../helpers/sim-sweep';
import { Engine } from '../../src/main/lab/engine';
import { REPORT_TRACE_POINTS } from '../../src/main/lab/report/build';
import type { RangeEnergy } from '../../src/shared/analysis';
import type { DatasetRecord } from '../../src/shared/dataset';
import { nvidiaSmiLog } from '../../bench/gen-power-logs';

const tmp = tempDir('caplab-report-dataset-');
afterAll(() => tmp.cleanup());
const env = labEnv(tmp.dir);
const fixture = (name: string) => join(process.cwd(), 'test/fixtures/h200-signal', name);

const ids = { counter: 0, upload: 0, two: 0, eight: 0 };
let uploadedFiles: string[] = [];

async function importFile(path: string): Promise<DatasetRecord> {
  const r = await runCli(['import', path, '--tz', 'UTC', '--json'], env);
  expect(r.code, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { dataset: DatasetRecord }).dataset;
}

beforeAll(async () => {
  // WattAMeter's log of the capture: an energy counter, so energy-counter deltas.
  ids.counter = (await importFile(fixture('wattameter.log'))).id;
  // The capture's nvidia-smi instant log, sent as text the way the browser host's drops are: staged in a temp file.
  const engine = await Engine.open({ dbPath: env.CAPLAB_DB, env: { ...process.env, ...env } });
  try {
    const up = await engine.importDataset({ import_id: 'report-upload', files: [{ name: 'smi-inst.csv', text: readFileSync(fixture('smi-inst.csv'), 'utf8') }], tz: 'UTC' });
    ids.upload = up.dataset!.id;
    uploadedFiles = up.dataset!.files.map((f) => f.path);
  } finally {
    await engine.close();
  }
  // Two GPUs: the same instant log as GPU 0 and, at 0.9 × its power, GPU 1 (a node's second card).
  const [head, ...rows] = readFileSync(fixture('smi-inst.csv'), 'utf8').trim().split('\n');
  const two = rows.flatMap((l) => {
    const c = l.split(',').map((x) => x.trim());
    return [l, `${c[0]}, 1, ${(Number(c[2]) * 0.9).toFixed(2)}, ${(Number(c[3]) * 0.9).toFixed(2)}`];
  });
  const twoPath = join(tmp.dir, 'two-gpus.csv');
  writeFileSync(twoPath, [head, ...two].join('\n') + '\n');
  ids.two = (await importFile(twoPath)).id;
  // Eight GPUs: the benchmarks' generated nvidia-smi log (load phases on a node of 8 H100s).
  const eightPath = join(tmp.dir, 'eight-gpus.csv');
  await nvidiaSmiLog(eightPath, 200_000);
  ids.eight = (await importFile(eightPath)).id;
}, 120_000);

const words = (s: string) => s.replace(/\s+/g, ' ').trim();
const j1 = (v: number | null | undefined) => v!.toFixed(1);

async function energyOf(datasetId: number, segmentId: number, device?: number): Promise<RangeEnergy> {
  const r = await runCli(['energy', '--dataset', String(datasetId), '--segment', String(segmentId), ...(device === undefined ? [] : ['--device', String(device)]), '--json'], env);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as RangeEnergy;
}

async function datasetOf(id: number): Promise<DatasetRecord> {
  const r = await runCli(['datasets', String(id), '--json'], env);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as DatasetRecord;
}

/** Prints the dataset's report (PDF and HTML), returns the PDF's text laid out as on the page, and the HTML. */
async function report(id: number, name: string): Promise<{ pdf: string; text: string; html: string }> {
  const pdf = join(tmp.dir, `${name}.pdf`);
  const html = join(tmp.dir, `${name}.html`);
  const r = await runCli(['report', '--dataset', String(id), '--pdf', pdf, '--html', html], env);
  expect(r.code, r.stderr).toBe(0);
  return { pdf, text: execFileSync('pdftotext', ['-layout', pdf, '-'], { encoding: 'utf8' }), html: readFileSync(html, 'utf8') };
}

/** The row of segment #id in the energy table, as one line of single-spaced words. */
function rowOf(text: string, segmentId: number): string {
  const line = text.split('\n').find((l) => new RegExp(`^\\s*#${segmentId}\\s`).test(l));
  expect(line, `row of segment #${segmentId}`).toBeDefined();
  return words(line!);
}

describe('caplab report --dataset: energy by segment and the trace', () => {
  it('prints each segment with the energy, bound and mean power caplab energy gives, its method, and the trace chart', { timeout: 120_000 }, async () => {
    const ds = await datasetOf(ids.counter);
    expect(ds.segments.length).toBeGreaterThanOrEqual(6);
    const { pdf, text, html } = await report(ids.counter, 'counter');
    const flat = words(text);
    expect(flat).toContain('1. Energy by segment 2. Power trace 3. Machine and run record');
    expect(flat).toContain(`of its one GPU (GPU 0)`);
    expect(flat).toContain(`caplab energy --dataset ${ids.counter} --segment N`);
    for (const s of ds.segments) {
      const e = await energyOf(ids.counter, s.id);
      expect(e.devices[0]!.method).toBe('energy-counter delta');
      const row = rowOf(text, s.id);
      // Window from the first sample, duration, no workload or cap, then the energy figures and the method.
      expect(row).toBe(`#${s.id} ${s.label} ${(s.start - ds.t_start!).toFixed(1)} ${(s.end - ds.t_start!).toFixed(1)} ${(s.end - s.start).toFixed(1)} – – ${j1(e.energy_j)} ${j1(e.uncertainty_j)} ${j1(e.mean_w)} energy-counter delta`);
      // The stated bound's basis, per segment, in the footnote.
      expect(flat).toContain(words(`#${s.id}: ${e.devices[0]!.uncertainty_basis}`));
    }
    // A load phase over 10 kJ also reads in kJ.
    const loads = await energyOf(ids.counter, ds.segments[1]!.id);
    expect(loads.energy_j!).toBeGreaterThan(1e4);
    expect(flat).toContain(`${Number((loads.energy_j! / 1e3).toPrecision(4))} kJ`);
    expect(flat).toContain('† The stated uncertainty: a systematic bound');
    expect(flat).toContain('not a statistical confidence interval');
    expect(flat).toContain('no segment carries a cap and work units');

    // The trace: its title and axis titles, and a line of at most the report's points from the 2241 samples.
    expect(flat).toContain('Power over time, GPU 0, segments shaded');
    expect(flat).toContain('time from the first sample (s)');
    expect(flat).toContain('GPU power (W)');
    expect(flat).toContain(`at most ${REPORT_TRACE_POINTS} points per device (of ${ds.samples} stored samples)`);
    expect(ds.samples).toBeGreaterThan(REPORT_TRACE_POINTS);
    const path = /<g class="series line" data-name="GPU 0"><path d="([^"]+)"/.exec(html)?.[1];
    expect(path).toBeDefined();
    const points = path!.split(/[ML]/).filter(Boolean).length;
    expect(points).toBeGreaterThan(REPORT_TRACE_POINTS / 2);
    expect(points).toBeLessThanOrEqual(REPORT_TRACE_POINTS);
    // One shaded window per segment, labelled with its number.
    expect(html.match(/<g class="band window">/g)?.length).toBe(ds.segments.length);
    for (const s of ds.segments) expect(html).toContain(`>${s.id}</text></g>`);

    // The record names the file as imported.
    expect(flat).toContain('test/fixtures/h200-signal/wattameter.log wattameter 125964');
    execFileSync('pdftoppm', ['-png', '-r', '60', '-f', '1', '-l', '2', pdf, join(tmp.dir, 'counter-page')]);
    expect(readdirSync(tmp.dir).filter((f) => f.startsWith('counter-page')).length).toBe(2);
  });

  it('names an uploaded file as the user chose it, never its removed temp path, with the instant-power method', { timeout: 120_000 }, async () => {
    expect(uploadedFiles).toEqual(['smi-inst.csv']);
    const ds = await datasetOf(ids.upload);
    const { text } = await report(ids.upload, 'upload');
    const flat = words(text);
    expect(flat).toContain('smi-inst.csv nvidia-smi');
    expect(flat).toContain(`smi-inst.csv (dataset ${ids.upload})`);
    expect(text).not.toContain('caplab-upload-');
    expect(text).not.toContain(tmpdir());
    for (const s of ds.segments.slice(0, 3)) {
      const e = await energyOf(ids.upload, s.id);
      expect(rowOf(text, s.id)).toContain(`${j1(e.energy_j)} ${j1(e.uncertainty_j)} ${j1(e.mean_w)} instant power, trapezoid`);
    }
  });

  it('sums the energy over two GPUs, says so, and gives each GPU its own row and trace line', { timeout: 120_000 }, async () => {
    const ds = await datasetOf(ids.two);
    const { text, html } = await report(ids.two, 'two');
    const flat = words(text);
    expect(flat).toContain('summed over its 2 GPUs (GPU 0, GPU 1)');
    expect(flat).toContain('energy (J, Σ 2 GPUs)');
    expect(flat).toContain('Power over time, per GPU (each its own line, not summed), segments shaded');
    const lines = text.split('\n');
    for (const s of ds.segments.slice(0, 3)) {
      const total = await energyOf(ids.two, s.id);
      expect(rowOf(text, s.id)).toContain(`${j1(total.energy_j)} ${j1(total.uncertainty_j)} ${j1(total.mean_w)} instant power, trapezoid`);
      // The two rows after the segment's (its kJ line between) are GPU 0's and GPU 1's own figures.
      const at = lines.findIndex((l) => new RegExp(`^\\s*#${s.id}\\s`).test(l));
      const after = lines.slice(at + 1, at + 8).map(words).filter((l) => /^GPU \d/.test(l));
      for (const device of [0, 1]) {
        const e = await energyOf(ids.two, s.id, device);
        expect(after[device]).toBe(`GPU ${device} ${j1(e.energy_j)} ${j1(e.uncertainty_j)} ${j1(e.mean_w)}`);
      }
    }
    for (const device of ['GPU 0', 'GPU 1']) expect(html).toContain(`<g class="series line" data-name="${device}">`);
  });

  it('gives eight GPUs a per-GPU table of their own', { timeout: 120_000 }, async () => {
    const ds = await datasetOf(ids.eight);
    expect(ds.segments.length).toBeGreaterThan(2);
    const { text } = await report(ids.eight, 'eight');
    const flat = words(text);
    expect(flat).toContain('summed over its 8 GPUs (GPU 0–7: NVIDIA H100 80GB HBM3)');
    expect(flat).toContain('Energy per GPU (J)');
    const seg = ds.segments[1]!;
    const perGpu = await Promise.all([0, 1, 2, 3, 4, 5, 6, 7].map((i) => energyOf(ids.eight, seg.id, i)));
    const rows = text.split('\n').map(words).filter((l) => l.startsWith(`#${seg.id} `));
    // The segment's row in the energy table, then its row in the per-GPU table.
    expect(rows).toHaveLength(2);
    expect(rows[1]).toBe(`#${seg.id} ${perGpu.map((e) => j1(e.energy_j)).join(' ')}`);
  });
});
