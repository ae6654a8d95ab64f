// Run summaries and every analysis table as CSV tables (headers carry units). Values are the analysis' own numbers,
// unrounded, so a script reading the CSV gets what `caplab analyze --json` has.
import type { AnalysisGroup, AnalysisResult, Stat } from '../../../shared/analysis';
import { SELECTORS } from '../../../shared/analysis';
import type { RunRecord } from '../../../shared/records';
import type { CsvTable } from './csv';
import type { SegmentEnergy } from '../../../shared/dataset-analysis';

export function runsTable(runs: readonly RunRecord[]): CsvTable {
  return {
    headers: ['run_id', 'sweep_id', 'workload', 'cap_w [W]', 'repetition', 'order', 'status', 'exit_code', 'error', 'started_at [s since epoch]', 'ended_at [s since epoch]', 'warmup_end [s since epoch]', 'measure_start [s since epoch]', 'measure_end [s since epoch]', 'units', 'throughput [units/s per GPU]', 'mean_power_w [W per GPU]', 'energy_j [J]', 'efficiency [units/J]', 'energy_sensor', 'enforced_limit_w [W]', 'exit_note'],
    rows: runs.map((r) => [r.id, r.sweep_id, r.workload, r.cap_w, r.repetition, r.order, r.status, r.exit_code, r.error, r.started_at, r.ended_at, r.warmup_end, r.measure_start, r.measure_end, r.units, r.throughput, r.mean_power_w, r.energy_j, r.efficiency, r.energy_sensor, r.enforced_limit_w, exitNote(r)]),
  };
}

/**
 * Why a run's exit code is what it is, where the code alone misleads: a run that completed with a non-zero code was
 * ended by CapLab at the end of its window (a time-boxed workload is stopped, with SIGTERM: 143).
 */
export function exitNote(r: Pick<RunRecord, 'status' | 'exit_code'>): string | null {
  if (r.status !== 'done' || r.exit_code === null || r.exit_code === 0) return null;
  const names: Record<number, string> = { 130: 'SIGINT', 137: 'SIGKILL', 143: 'SIGTERM' };
  const signal = r.exit_code > 128 ? ` (${names[r.exit_code] ?? `signal ${r.exit_code - 128}`})` : '';
  return `stopped by CapLab at the end of its window${signal}`;
}

const statCols = (name: string, unit: string) => [`${name}_mean [${unit}]`, `${name}_sd [${unit}]`, `${name}_cv`, `${name}_ci_lo [${unit}]`, `${name}_ci_hi [${unit}]`, `${name}_n`];
const statVals = (s: Stat) => [s.mean, s.sd, s.cv, s.ci?.lo ?? null, s.ci?.hi ?? null, s.n];
const groupCols = ['workload', 'device_model'];
const groupVals = (g: AnalysisGroup) => [g.workload, g.device_model];

/** A sweep priced with a tariff: the cost and carbon columns the caps and run tables end with (none without one). */
function costColumns(r: AnalysisResult): { caps: string[]; runs: string[] } {
  if (!r.cost) return { caps: [], runs: [] };
  const c = r.cost.tariff.currency;
  return {
    caps: ['cost_runs', 'cost_energy_j [J]', `cost [${c}]`, 'co2e [kg]', 'cost_counted_runs', 'cost_units', `cost_per_million_units [${c}]`, 'co2e_per_million_units [kg]'],
    runs: ['window_price [' + c + '/MWh]', 'window_carbon [g/kWh]', `cost [${c}]`, 'co2e [kg]'],
  };
}

function capCostVals(r: AnalysisResult, g: AnalysisGroup, cap: number): (string | number | null)[] {
  if (!r.cost) return [];
  const c = r.cost.groups.find((x) => x.workload === g.workload && x.device_model === g.device_model)?.caps.find((x) => x.cap_w === cap);
  return c ? [c.runs, c.energy_j, c.cost, c.co2e_kg, c.counted_runs, c.units, c.cost_per_million_units, c.co2e_kg_per_million_units] : [0, 0, null, null, 0, null, null, null];
}

function runCostVals(r: AnalysisResult, runId: number): (string | number | null)[] {
  if (!r.cost) return [];
  const c = r.cost.runs.find((x) => x.run_id === runId);
  return c ? [c.price_per_mwh, c.carbon_g_per_kwh, c.cost, c.co2e_kg] : [null, null, null, null];
}

export function capsTable(r: AnalysisResult): CsvTable {
  return {
    headers: [...groupCols, 'cap_w [W]', 'n_usable', ...statCols('throughput', 'units/s per GPU'), ...statCols('efficiency', 'units/J'), ...statCols('power', 'W per GPU'), ...statCols('node_power', 'W'), ...statCols('energy_per_unit', 'J'), ...statCols('temp', '°C'), 'sm_clock [MHz]', 'mem_clock [MHz]', 'power_cap_throttled_share [0-1]', 'enforced', 'eligible', 'excluded_reason', 'flags', 'run_ids', ...costColumns(r).caps],
    rows: r.groups.flatMap((g) =>
      g.caps.map((c) => [
        ...groupVals(g), c.cap_w, c.n_usable, ...statVals(c.throughput), ...statVals(c.efficiency), ...statVals(c.power_w), ...statVals(c.node_power_w), ...statVals(c.energy_per_unit_j), ...statVals(c.temp_c),
        c.clocks.sm_mhz, c.clocks.mem_mhz, c.clocks.power_cap_throttled_share, c.enforcement.enforced, c.eligible, c.excluded_reason, c.flags.join(' '), c.run_ids.join(' '),
        ...capCostVals(r, g, c.cap_w),
      ]),
    ),
  };
}

export function optimaTable(r: AnalysisResult): CsvTable {
  return {
    headers: [...groupCols, 'selector', 'selected', 'best_cap_w [W]', 'value', 'metric', 'direction', 'range_lo_w [W]', 'range_hi_w [W]', 'indistinguishable_caps [W]', 'untested_caps [W]', 'at_edge', 'reference_cap_w [W]', 'note', 'basis', 'no_answer_reason', 'fix'],
    rows: r.groups.flatMap((g) =>
      SELECTORS.map((s) => {
        const o = g.optima[s];
        return [...groupVals(g), s, s === r.options.selector, o.cap_w, o.value, o.metric, o.direction, o.range_w?.[0] ?? null, o.range_w?.[1] ?? null, o.indistinguishable_caps?.join(' ') ?? null, o.untested_caps.join(' '), o.at_edge, o.reference_cap_w, o.note, o.basis, o.no_answer_reason, o.fix];
      }),
    ),
  };
}

export function sensitivityTable(r: AnalysisResult): CsvTable {
  return {
    headers: [...groupCols, 'overhead_w [W]', ...SELECTORS.map((s) => `best_${s} [W]`), 'efficiency_at_best [units/J]'],
    rows: r.groups.flatMap((g) => g.sensitivity.curve.map((row) => [...groupVals(g), row.overhead_w, ...SELECTORS.map((s) => row.best[s] ?? null), row.efficiency])),
  };
}

export function paretoTable(r: AnalysisResult): CsvTable {
  return {
    headers: [...groupCols, 'cap_w [W]', 'throughput [units/s per GPU]', 'efficiency [units/J]', 'on_front'],
    rows: r.groups.flatMap((g) => g.pareto.points.map((p) => [...groupVals(g), p.cap_w, p.throughput, p.efficiency, p.on_front])),
  };
}

export function runAnalysisTable(r: AnalysisResult): CsvTable {
  return {
    headers: ['run_id', 'workload', 'device_model', 'cap_w [W]', 'repetition', 'status', 'usable', 'duration_s [s]', 'units', 'units_total', 'gpus', 'throughput [units/s per GPU]', 'gpu_energy_j [J]', 'node_energy_j [J]', 'mean_power_w [W per GPU]', 'node_power_w [W]', 'efficiency [units/J]', 'energy_per_unit_j [J]', 'energy_sensor', 'sm_clock [MHz]', 'power_cap_throttled_share [0-1]', 'temp_c [°C]', 'warmup_end [s since epoch]', 'enforced', 'flags', ...costColumns(r).runs],
    rows: r.runs.map((x) => [x.run_id, x.workload, x.device_model, x.cap_w, x.repetition, x.status, x.usable, x.duration_s, x.units, x.units_total, x.gpus, x.throughput, x.gpu_energy_j, x.node?.energy_j ?? null, x.mean_power_w, x.node_power_w, x.efficiency, x.energy_per_unit_j, x.energy_sensor, x.clocks.sm_mhz, x.clocks.power_cap_throttled_share, x.temp_c, x.steady_state.warmup_end, x.enforcement.enforced, x.flags.join(' '), ...runCostVals(r, x.run_id)]),
  };
}

/** Every analysis table, by file stem. */
export function analysisTables(r: AnalysisResult): Record<string, CsvTable> {
  return { caps: capsTable(r), optima: optimaTable(r), sensitivity: sensitivityTable(r), pareto: paretoTable(r), 'run-analysis': runAnalysisTable(r) };
}

/** A dataset's segments with their energy and, where they carry work units, throughput and efficiency. */
export function segmentsTable(segments: readonly SegmentEnergy[]): CsvTable {
  return {
    headers: ['segment_id', 'label', 'origin', 'start [s since epoch]', 'end [s since epoch]', 'workload', 'cap_w [W]', 'units', 'units_in_window', 'energy_j [J]', 'mean_w [W]', 'samples', 'sensor', 'throughput [units/s per GPU]', 'efficiency [units/J]'],
    rows: segments.map(({ segment: s, energy: e, throughput, efficiency }) => [s.id, s.label, s.origin, s.start, s.end, s.workload, s.cap_w, s.units, s.units_in_window, e.energy_j, e.mean_w, e.samples, e.sensor, throughput, efficiency]),
  };
}

/** Several sweeps' tables as one: each row led by its sweep's id. */
export function withSweepColumn(tables: { sweep_id: number; table: CsvTable }[]): CsvTable {
  return { headers: ['sweep_id', ...(tables[0]?.table.headers ?? [])], rows: tables.flatMap((t) => t.table.rows.map((r) => [t.sweep_id, ...r])) };
}
