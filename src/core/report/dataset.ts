// A dataset report's own sections: energy by segment (analyzeDataset's figures, rounded as `caplab energy` prints
// them), the power trace with the segments shaded, and the files as the dataset's record names them.
import type { ChartPoint, ChartSeries, ChartSpec } from '../../shared/charts';
import { deviceKindWords, energyKindOf, type DatasetDeviceKind } from '../../shared/dataset';
import type { SegmentEnergy } from '../../shared/dataset-analysis';
import { colorFor } from '../../shared/format';
import { escapeHtml as h } from './html-escape';
import { num, utc } from './format';
import type { DatasetPart } from './model';
import { figure, table } from './sections';

/** J to one decimal, as `caplab energy` prints it (withBound). */
const j1 = (v: number | null | undefined) => (v == null || !Number.isFinite(v) ? null : v.toFixed(1));
const s1 = (v: number) => v.toFixed(1);

/** 19089.2 J as "19.09 kJ" (10 kJ and over): the J figure stays exact, this is for reading. */
function scaled(joules: number): string | null {
  const a = Math.abs(joules);
  if (a >= 1e9) return `${num(joules / 1e9)} GJ`;
  if (a >= 1e6) return `${num(joules / 1e6)} MJ`;
  if (a >= 1e4) return `${num(joules / 1e3)} kJ`;
  return null;
}

/** "GPU 1": a device by its kind and index (several GPUs of one model share a name). */
const deviceLabel = (d: { kind: string; index: number }) => `${d.kind === 'gpu' ? 'GPU' : d.kind} ${d.index}`;

/** The devices the dataset's energy sums over (those of its energy kind: GPUs, else node-level or facility power). */
function energyDevices(part: DatasetPart) {
  const kind = energyKindOf(part.devices.map((d) => d.kind));
  const devices = part.devices.filter((d) => d.kind === kind).sort((a, b) => a.index - b.index);
  return { kind, devices, names: deviceNames(devices) };
}

/** "GPU 0–7: NVIDIA H100 80GB HBM3": the devices grouped by model name, a run of indices written as a range. */
function deviceNames(devices: readonly { kind: string; index: number; name: string }[]): string[] {
  const byName = new Map<string, { kind: string; index: number }[]>();
  for (const d of devices) byName.set(d.name, [...(byName.get(d.name) ?? []), d]);
  return [...byName].map(([name, ds]) => {
    const run = ds.length > 2 && ds.every((d, i) => d.index === ds[0]!.index + i);
    const labels = run ? `${deviceLabel(ds[0]!)}–${ds[ds.length - 1]!.index}` : ds.map(deviceLabel).join(', ');
    return ds.length === 1 && name === labels ? name : `${labels}: ${name}`;
  });
}

/** Warnings said once each, with the rows they hold for (a whole dataset's devices often share one). */
function groupedNotes(notes: readonly { text: string; where: string }[]): string[] {
  const by = new Map<string, string[]>();
  for (const n of notes) by.set(n.text, [...(by.get(n.text) ?? []), n.where]);
  const MAX_WHERE = 6;
  return [...by].map(([text, where]) => `${where.slice(0, MAX_WHERE).join(', ')}${where.length > MAX_WHERE ? ` and ${where.length - MAX_WHERE} more` : ''}: ${text}`);
}

function kindWord(kind: DatasetDeviceKind | null, n: number): string {
  if (kind === 'gpu' || kind === null) return n === 1 ? 'GPU' : 'GPUs';
  return `${deviceKindWords[kind]} series`;
}

/** Times in the table and on the trace: from the first sample; the date when the log's clock is the wall clock. */
function timeZero(part: DatasetPart): string {
  return part.clock === 'wall' ? `the dataset's first sample, ${utc(part.t_start)}` : "the log's start (its clock is relative)";
}

function methodText(e: SegmentEnergy['energy'] | SegmentEnergy['energy']['devices'][number]): string {
  if ('devices' in e) {
    const methods = [...new Set(e.devices.map((d) => d.method ?? d.sensor).filter((m): m is string => m != null))];
    return methods.join('; ') || e.sensor || '–';
  }
  return e.method ?? e.sensor ?? e.reason ?? '–';
}

function energyCell(v: number | null | undefined): string | null {
  const text = j1(v);
  if (text === null) return null;
  const big = scaled(v!);
  return big ? `${text}<br><span class="unit-alt">${big}</span>` : text;
}

/** Up to this many devices each get a row under their segment; more get one column each in a table of their own. */
const MAX_DEVICE_ROWS = 4;

/** "Energy by segment": each segment's window, workload and cap, energy with its stated bound, mean power, method. */
export function segmentsSection(part: DatasetPart): string {
  const { kind, devices, names } = energyDevices(part);
  const n = devices.length;
  const deviceRows = n > 1 && n <= MAX_DEVICE_ROWS;
  const matrix = n > MAX_DEVICE_ROWS;
  const t0 = part.t_start;
  const rows: (string | null)[][] = [];
  const perGpu: (string | null)[][] = [];
  const bases: { text: string; where: string }[] = [];
  const notes: { text: string; where: string }[] = [];
  const who = (index: number) => deviceLabel({ kind: kind ?? 'gpu', index });
  for (const se of part.segments) {
    const s = se.segment;
    const e = se.energy;
    rows.push([
      `#${s.id}`,
      h(s.label ?? '–'),
      s1(s.start - t0),
      s1(s.end - t0),
      s1(s.end - s.start),
      s.workload === null ? null : h(s.workload),
      s.cap_w === null ? null : `${num(s.cap_w)}\u00a0W`,
      energyCell(e.energy_j),
      j1(e.uncertainty_j),
      j1(e.mean_w),
      `<span class="method">${h(methodText(e))}</span>`,
    ]);
    for (const d of e.devices) {
      // A device's method is shown where it differs from its segment's (a device without energy says why).
      const method = methodText(d) === methodText(e) ? '' : h(methodText(d));
      if (deviceRows) rows.push(['', `<span class="sub">${h(who(d.index))}</span>`, '', '', '', '', '', energyCell(d.energy_j), j1(d.uncertainty_j), j1(d.mean_w), method]);
      if (d.uncertainty_basis && !matrix) bases.push({ text: d.uncertainty_basis, where: `#${s.id}${deviceRows ? ` ${who(d.index)}` : ''}` });
      for (const w of [...(d.reason ? [d.reason] : []), ...d.warnings]) notes.push({ text: w, where: `#${s.id} ${who(d.index)}` });
    }
    if (matrix) {
      if (e.uncertainty_basis) bases.push({ text: e.uncertainty_basis, where: `#${s.id}` });
      const of = new Map(e.devices.map((d) => [d.index, d]));
      perGpu.push([`#${s.id}`, ...devices.map((d) => j1(of.get(d.index)?.energy_j))]);
    }
    for (const w of e.warnings) notes.push({ text: w, where: `#${s.id}` });
  }
  const where = deviceRows ? "each device's own figure in a row under its segment" : "each device's own energy in the table after it";
  const summed = n === 0 ? 'of no device (the dataset has none with power)' : n === 1 ? `of its one ${kindWord(kind, 1)} (${names[0]})` : `summed over its ${n} ${kindWord(kind, n)} (${names.join(', ')}), ${where}`;
  const cmd = `<code>caplab energy --dataset ${part.dataset_id} --segment N</code>`;
  const lead = `<p>Energy of each segment over its window, ${h(summed)}. The figures are the engine's own (analyzeDataset), those ${cmd} prints for segment #N. Times are seconds from ${h(timeZero(part))}.</p>`;
  const energyHead = `energy (J${n > 1 ? `, Σ ${n} ${kindWord(kind, n)}` : ''})`;
  const body = table(['#', 'segment', 'start (s)', 'end (s)', 'duration (s)', 'workload', 'cap', energyHead, '± (J) †', `mean power (W${n > 1 ? ', Σ' : ''})`, 'energy method'], rows, 'segments small');
  const perGpuTable = matrix
    ? `<h3>Energy per ${kindWord(kind, 1)} (J)</h3><p class="small">Each device's share of its segment's energy; its own ± bound and method: <code>caplab energy --dataset ${part.dataset_id} --segment N --device I --json</code>.</p>${table(['#', ...devices.map((d) => deviceLabel(d))], perGpu, 'per-device tiny')}`
    : '';
  const foot =
    `<p class="small footnote">† The stated uncertainty: a systematic bound from the sensor's stated accuracy and the energy method's own claim, ` +
    `not a statistical confidence interval (a sensor that reads off stays off when repeated)${n > 1 ? "; a segment's bound is its devices' bounds added (worst case)" : ''}. ` +
    `No figure: no stated accuracy for that sensor or method. Basis per row:</p>` +
    (bases.length ? `<ul class="small bases">${groupedNotes(bases).map((b) => `<li>${h(b)}</li>`).join('')}</ul>` : '');
  const warn = [...part.warnings, ...groupedNotes(notes)];
  return `${lead}${body}${foot}${perGpuTable}${warn.length ? `<h3>Notes</h3><ul class="small">${warn.map((w) => `<li>${h(w)}</li>`).join('')}</ul>` : ''}`;
}

/** A time axis unit that keeps the tick numbers short over the dataset's span. */
function timeUnit(spanS: number): { unit: string; div: number } {
  if (spanS <= 1200) return { unit: 's', div: 1 };
  if (spanS <= 72_000) return { unit: 'min', div: 60 };
  return { unit: 'h', div: 3600 };
}

const point = (x: number, y: number): ChartPoint => ({ x, y, err: null, label: null, state: 'ok', excluded: false, note: null });

/** The power trace of the devices the energy sums over, each its own line (not summed), the segments shaded. */
export function traceChart(part: DatasetPart): ChartSpec {
  const { kind, devices } = energyDevices(part);
  const traces = new Map(part.trace.devices.map((d) => [d.device_id, d]));
  const t0 = part.t_start;
  const { unit, div } = timeUnit(Math.max(part.trace.to - t0, 0));
  const x = (t: number) => (t - t0) / div;
  const series: ChartSeries[] = devices.map((d, i) => ({
    name: deviceLabel(d),
    type: 'line',
    axis: 'y',
    color: colorFor(i),
    dashed: false,
    faded: false,
    legend: true,
    // A gap (a bucket with no power reading) is left out: the line joins across it.
    points: (traces.get(d.key)?.power_w.t ?? []).flatMap((t, k) => {
      const v = traces.get(d.key)!.power_w.v[k];
      return v == null ? [] : [point(x(t), v)];
    }),
  }));
  const who = devices.length === 1 ? deviceLabel(devices[0]!) : `per ${kind === 'gpu' || kind === null ? 'GPU' : 'device'} (each its own line, not summed)`;
  return {
    id: 'dataset-trace',
    title: `Power over time, ${who}, segments shaded`,
    x: { label: 'time from the first sample', unit, min: null, max: null, zero: false, ticks: null },
    y: { label: kind === 'gpu' || kind === null ? 'GPU power' : 'power', unit: 'W', min: null, max: null, zero: true, ticks: null },
    y2: null,
    series,
    bands: part.segments.map((se) => ({ from: x(se.segment.start), to: x(se.segment.end), label: `${se.segment.id}`, window: true })),
    legend: devices.length > 1 && devices.length <= 8,
    caption:
      `${kind === null || kind === 'gpu' ? 'GPU' : deviceKindWords[kind]} power as stored, min/max-decimated to at most ${part.max_points} points per device ` +
      `(of ${part.samples} stored samples), so spikes and dips stay visible. Shaded: the segments, numbered as in the energy table. ` +
      `Time from ${timeZero(part)}.`,
  };
}

export function traceSection(part: DatasetPart): string {
  return figure(traceChart(part));
}

/** The dataset's files as its record names them: the path given, or the name of the file the user chose. */
export function filesSection(part: DatasetPart): string {
  const rows = part.files.map((f) => [h(f.path), h(f.format), String(f.bytes), h(f.content_hash.slice(0, 16))]);
  return `<h3>Files</h3>${rows.length ? table(['file', 'format', 'bytes', 'SHA-256 (first 16)'], rows, 'small files') : '<p>No files recorded.</p>'}`;
}
