import { z } from 'zod';
import { AdaptiveSummary } from './adaptive';
import { selectorIds } from './selectors';
import { flagIds } from './flags';
import { SensorKind } from './device';
import { Reading, SeriesSample } from './sample';
import { SourceRef } from './source';
import { RunStatus } from './records';
import { SweepCost } from './cost';

/**
 * Analysis engine schemas (issue #5), shared by src/core/analysis, the CLI and the UI.
 * Units: power W, energy J, time s (epoch seconds for instants), throughput work units per second per GPU,
 * efficiency work units per joule of node energy (GPUs + measured CPU or a fixed node overhead).
 * Every number that may be unknown is nullable: results are JSON (no NaN/Infinity) and say why a value is missing.
 */

// ---------------------------------------------------------------------------------------------------------------
// Input
// ---------------------------------------------------------------------------------------------------------------

export const TimeWindow = z.object({ start: z.number(), end: z.number() });
export type TimeWindow = z.infer<typeof TimeWindow>;


// The device sample inside a series is the one sample model's lenient form (sample.ts).
export { SeriesSample } from './sample';
export type { SeriesSampleInput } from './sample';

/** All samples of one device (GPU, or a CPU package for measured CPU energy) over a run. */
export const DeviceSeries = z.object({
  device_id: z.string(),
  name: z.string().nullable().default(null),
  samples: z.array(SeriesSample).default([]),
  /** Counter wrap value in mJ (RAPL: max_energy_range_uj / 1000). null: a decreasing counter is a reset. */
  counter_wrap_mj: z.number().positive().nullable().default(null),
  /** Seconds a counter reading's stamp runs after the energy it holds (an imported NVML log's read lag); 0: none. */
  counter_lag_s: z.number().min(0).max(1).default(0),
});
export type DeviceSeries = z.infer<typeof DeviceSeries>;

/** One workload step as the line protocol reports it: `units` done in the step that ended at t and took dt s. */
export const StepPoint = z.object({ t: Reading, units: Reading, dt: Reading.nullable().default(null) });
export type StepPoint = z.infer<typeof StepPoint>;

export const AnalysisRun = z.object({
  /** The run's id; a dataset segment's is minus its segment id (see `source`). */
  run_id: z.number().int(),
  /** What was measured: a CapLab run or a dataset segment. null: the run run_id. */
  source: SourceRef.nullable().default(null),
  workload: z.string(),
  /** Device model the run used, e.g. "H100 SXM (simulated)". Runs are grouped by (workload, device_model). */
  device_model: z.string().default('unknown'),
  cap_w: z.number(),
  repetition: z.number().int().min(1).default(1),
  /** Position in the sweep's run order (for drift); null: ordered by repetition. */
  order: z.number().int().nullable().default(null),
  status: RunStatus.default('done'),
  started_at: z.number().nullable().default(null),
  /** Warm-up end the runner recorded, if any (the analysis also detects one). */
  warmup_end: z.number().nullable().default(null),
  /** Measurement window. null: the run has none (failed early) and is reported but not analysed. */
  window: z.object({ start: Reading, end: Reading }).nullable(),
  units: z.string().nullable().default(null),
  /** Work units done in the window, summed over the run's GPUs. null: derived from `steps`. */
  units_in_window: Reading.nullable().default(null),
  steps: z.array(StepPoint).default([]),
  /** GPUs the workload used (throughput is per GPU). null: the number of GPU series, at least 1. */
  gpus: z.number().int().positive().nullable().default(null),
  devices: z.array(DeviceSeries).default([]),
  /** Measured CPU power/energy (RAPL) of the node; empty: the node overhead is used instead. */
  cpu: z.array(DeviceSeries).default([]),
  /** Limit the device reported after the cap was set. null: taken from the samples' limit_w. */
  enforced_limit_w: z.number().nullable().default(null),
});
export type AnalysisRun = z.infer<typeof AnalysisRun>;
export type AnalysisRunInput = z.input<typeof AnalysisRun>;

export const DeviceLimits = z.object({
  min_w: z.number().positive(),
  max_w: z.number().positive(),
  /** Smallest step the device accepts (NVML: 1 W). */
  granularity_w: z.number().positive().default(1),
});
export type DeviceLimits = z.infer<typeof DeviceLimits>;

export const AnalysisInput = z.object({
  sweep_id: z.number().int().nullable().default(null),
  name: z.string().nullable().default(null),
  runs: z.array(AnalysisRun),
  /** The plan's node overhead, W; used when options leave it out. */
  overhead_w: z.number().min(0).nullable().default(null),
  /** Limits per device model, for adaptive refinement. */
  device_limits: z.record(z.string(), DeviceLimits).default({}),
  /** Default power limit per device model, W: min-energy-slowdown's reference ("uncapped"). */
  default_limits: z.record(z.string(), z.number().positive()).default({}),
});
export type AnalysisInput = z.infer<typeof AnalysisInput>;
export type AnalysisInputRaw = z.input<typeof AnalysisInput>;

/** An optimum selector (src/shared/selectors.ts lists them, one line each). */
export const Selector = z.enum(selectorIds);
export type Selector = z.infer<typeof Selector>;
export const SELECTORS: readonly Selector[] = Selector.options;

export const AdaptiveSettings = z.object({
  width_w: z.number().positive().default(25),
  max_runs: z.number().int().positive().default(12),
  runs_used: z.number().int().min(0).default(0),
  repetitions: z.number().int().positive().default(1),
  /** New caps proposed per round (1 = classic golden-section, 2 = both sides of the peak). */
  batch: z.number().int().min(1).max(4).default(2),
});
export type AdaptiveSettings = z.infer<typeof AdaptiveSettings>;

export const AnalysisOptions = z.object({
  /** Node overhead, W (CPU, memory, fans...). null: the input's overhead_w, else 100 W. */
  overhead_w: z.number().min(0).nullable().default(null),
  /** Use measured CPU energy instead of the overhead where a run has it. */
  use_measured_cpu: z.boolean().default(true),
  selector: Selector.default('max-efficiency'),
  /** min-energy-slowdown: allowed increase of time per unit vs the highest cap (0.1 = 10 % slower). */
  slowdown_budget: z.number().min(0).default(0.1),
  /** weighted: weight of time (0..1); energy gets 1 - weight. */
  weight: z.number().min(0).max(1).default(0.5),
  /** Keep caps that were not enforced in the optimum (default: excluded). */
  include_unenforced: z.boolean().default(false),
  /**
   * Keep runs flagged no-steady-state or warmup-in-window in the statistics, optima, Pareto front and sensitivity
   * (default: they are left out, and the exclusion is listed per cap).
   */
  include_flagged: z.boolean().default(false),
  /** Family-wise error rate of the equivalence statements (and the level of drift tests). */
  alpha: z.number().gt(0).lt(1).default(0.05),
  /** Practical margin: a cap within this fraction of the best cap's score is as good as the best. */
  margin: z.number().gt(0).lt(1).default(0.02),
  /**
   * Judge a cap with a single run against the best on the run-to-run spread pooled over the caps with repetitions
   * (plan adaptive.repetitions.pool_single), instead of leaving it undetermined.
   */
  pool_single: z.boolean().default(false),
  /** Coefficient of variation above which a cap point is flagged high-variance. */
  cv_threshold: z.number().positive().default(0.05),
  /** Enforcement tolerance: mean power above cap * (1 + frac) + w is not enforced. */
  enforce_tol_frac: z.number().min(0).default(0.05),
  enforce_tol_w: z.number().min(0).default(5),
  sensitivity: z
    .object({ from_w: z.number().min(0).default(0), to_w: z.number().min(0).default(300), step_w: z.number().positive().default(5) })
    .default({ from_w: 0, to_w: 300, step_w: 5 }),
  /** Propose refinement caps (plan option caps: {adaptive}). null: no proposal. */
  adaptive: AdaptiveSettings.nullable().default(null),
});
export type AnalysisOptions = z.infer<typeof AnalysisOptions>;
export type AnalysisOptionsInput = z.input<typeof AnalysisOptions>;

// ---------------------------------------------------------------------------------------------------------------
// Output
// ---------------------------------------------------------------------------------------------------------------

/** Machine-readable flags (src/shared/flags.ts lists them with their meaning). Add, never rename: the UI and scripts key on them. */
export const AnalysisFlag = z.enum(flagIds);
export type AnalysisFlag = z.infer<typeof AnalysisFlag>;

export const EnergyResult = z.object({
  device_id: z.string().nullable(),
  /** Energy over the window, J. null: could not be computed (see reason). */
  energy_j: z.number().nullable(),
  mean_w: z.number().nullable(),
  /** Readings used (inside the window, plus the bracketing ones for counters). */
  samples: z.number().int(),
  sensor: SensorKind.nullable(),
  /** How the energy was computed from that sensor (counter delta, trapezoid, boxcar tiles, ...). */
  method: z.string().nullable().optional(),
  duration_s: z.number(),
  warnings: z.array(z.string()),
  flags: z.array(AnalysisFlag),
  reason: z.string().nullable(),
  /**
   * Share of the window the power series covers: readings at most 1.5 sampling intervals apart count as covering
   * the time between them (the interval is the series' median spacing). null: fewer than 2 power readings.
   */
  coverage: z.number().nullable().default(null),
  /**
   * What the readings leave open at the window's two edges, J: where an edge cuts a counter interval (or the ramp
   * of a densely read 1 s average) and the readings cannot place a step inside it exactly. Part of uncertainty_j.
   */
  edge_uncertainty_j: z.number().optional(),
});
export type EnergyResult = z.infer<typeof EnergyResult>;

/**
 * A dataset energy's stated uncertainty (src/core/analysis/energy-uncertainty.ts): energy_j +- uncertainty_j is a
 * systematic bound from the sensor's stated accuracy and the method's claim, not a statistical CI. Absent for runs.
 */
const energyBound = { uncertainty_j: z.number().nullable().optional(), uncertainty_basis: z.string().optional() };

/** Energy over a time range of stored samples (`caplab energy`, the energyInRange method). */
export const RangeEnergy = z.object({
  from: z.number(),
  to: z.number(),
  duration_s: z.number(),
  /** Sum over the selected devices; null when any selected device has no energy. */
  energy_j: z.number().nullable(),
  mean_w: z.number().nullable(),
  samples: z.number().int(),
  /** The sensor used ('mixed' when devices differ), null when none worked. */
  sensor: z.string().nullable(),
  devices: z.array(EnergyResult.extend({ index: z.number().int(), name: z.string(), device_key: z.string(), ...energyBound })),
  warnings: z.array(z.string()),
  /**
   * What the energy is of (a dataset's device kind): `gpu`, or `node` (GPU + CPU summed over the nodes, e.g. NLR
   * aggregated profiles), `facility`, `cpu`; absent for runs (always GPUs).
   */
  power_of: z.enum(['gpu', 'cpu', 'node', 'facility']).optional(),
  ...energyBound,
});
export type RangeEnergy = z.infer<typeof RangeEnergy>;

export const NodeEnergy = z.object({
  energy_j: z.number().nullable(),
  gpu_j: z.number().nullable(),
  cpu_j: z.number().nullable(),
  overhead_j: z.number().nullable(),
  source: z.enum(['measured-cpu', 'overhead']),
  warnings: z.array(z.string()),
});
export type NodeEnergy = z.infer<typeof NodeEnergy>;

export const Ci = z.object({ level: z.number(), lo: z.number(), hi: z.number(), half_width: z.number(), t: z.number(), df: z.number() });
export type Ci = z.infer<typeof Ci>;

export const Stat = z.object({
  n: z.number().int(),
  mean: z.number().nullable(),
  sd: z.number().nullable(),
  cv: z.number().nullable(),
  min: z.number().nullable(),
  max: z.number().nullable(),
  /** 95 % CI of the mean (Student t). null with a note for n < 2: one repetition has no spread to report. */
  ci: Ci.nullable(),
  note: z.string().nullable(),
});
export type Stat = z.infer<typeof Stat>;

export const Trend = z.object({
  n: z.number().int(),
  slope: z.number(),
  p_value: z.number().nullable(),
  /** Change over the span of x (slope * (max x - min x)). */
  change: z.number(),
  relative_change: z.number().nullable(),
  flagged: z.boolean(),
});
export type Trend = z.infer<typeof Trend>;

export const SteadySeries = z.object({
  /** Time the steady state starts (first kept point), or null. */
  end_t: z.number().nullable(),
  truncate_index: z.number().int().nullable(),
  n: z.number().int(),
  reached: z.boolean(),
  reason: z.string().nullable(),
});
export type SteadySeries = z.infer<typeof SteadySeries>;

export const SteadyState = z.object({
  /** 'MSER-5' (or 'MSER-1' for series shorter than 50 points). */
  method: z.string(),
  throughput: SteadySeries.nullable(),
  power: SteadySeries.nullable(),
  /** Detected end of warm-up: the later of the throughput and power estimates. */
  warmup_end: z.number().nullable(),
  /** Start of the workload's first step (epoch s): the plan's warm-up counts from here. null: no steps. */
  first_step_t: z.number().nullable().default(null),
  /** MSER's verdict: every series settled (null: no series). */
  reached: z.boolean().nullable(),
  /** The run never settled in a way that matters: MSER failed and the window still trends by more than 2 %. */
  unsettled: z.boolean(),
  /** The detected warm-up reaches into the window and moves the window mean by more than 1 %. */
  warmup_in_window: z.boolean(),
  /** Relative shift of the window mean caused by the part before the detected warm-up end. */
  window_bias: z.number().nullable(),
  /** Relative change of the series across the window (least-squares line). */
  window_trend: z.number().nullable(),
  notes: z.array(z.string()),
});
export type SteadyState = z.infer<typeof SteadyState>;

export const Enforcement = z.object({
  cap_w: z.number(),
  /** null: no power data to judge. */
  enforced: z.boolean().nullable(),
  mean_w: z.number().nullable(),
  p95_w: z.number().nullable(),
  p99_w: z.number().nullable(),
  enforced_limit_w: z.number().nullable(),
  reasons: z.array(z.string()),
  flags: z.array(AnalysisFlag),
});
export type Enforcement = z.infer<typeof Enforcement>;

export const ClockSummary = z.object({
  sm_mhz: z.number().nullable(),
  mem_mhz: z.number().nullable(),
  /** Share of time with clocks_event_reasons bit 0x4 (SW power cap) set, 0..1; null when not reported. */
  power_cap_throttled_share: z.number().nullable(),
  samples: z.number().int(),
});
export type ClockSummary = z.infer<typeof ClockSummary>;

export const RunAnalysis = z.object({
  run_id: z.number().int(),
  source: SourceRef,
  workload: z.string(),
  device_model: z.string(),
  cap_w: z.number(),
  repetition: z.number().int(),
  status: RunStatus,
  window: TimeWindow.nullable(),
  duration_s: z.number().nullable(),
  units: z.string().nullable(),
  units_total: z.number().nullable(),
  gpus: z.number().int(),
  /** Work units per second per GPU. */
  throughput: z.number().nullable(),
  gpu_energy_j: z.number().nullable(),
  node: NodeEnergy.nullable(),
  /** Mean power per GPU, W. */
  mean_power_w: z.number().nullable(),
  /** Node energy / duration, W. */
  node_power_w: z.number().nullable(),
  /** Work units per joule of node energy. */
  efficiency: z.number().nullable(),
  energy_per_unit_j: z.number().nullable(),
  energy_sensor: z.string().nullable(),
  devices: z.array(EnergyResult),
  cpu: z.array(EnergyResult),
  steady_state: SteadyState,
  enforcement: Enforcement,
  clocks: ClockSummary,
  temp_c: z.number().nullable(),
  /** Counted in the statistics (finished, with energy and throughput). */
  usable: z.boolean(),
  flags: z.array(AnalysisFlag),
  warnings: z.array(z.string()),
});
export type RunAnalysis = z.infer<typeof RunAnalysis>;

export const CapPoint = z.object({
  cap_w: z.number(),
  run_ids: z.array(z.number().int()),
  n_usable: z.number().int(),
  throughput: Stat,
  power_w: Stat,
  node_power_w: Stat,
  efficiency: Stat,
  energy_per_unit_j: Stat,
  temp_c: Stat,
  enforcement: Enforcement,
  clocks: ClockSummary,
  /** Throughput trend across repetitions at this cap (n >= 3). */
  drift: Trend.nullable(),
  /** Counted in optima (usable runs, enforced unless include_unenforced). */
  eligible: z.boolean(),
  excluded_reason: z.string().nullable(),
  flags: z.array(AnalysisFlag),
  /** Usable runs left out of this cap's statistics and every decision, with why (include_flagged keeps them). */
  excluded_runs: z.array(z.object({ run_id: z.number().int(), reason: z.string() })).default([]),
  /**
   * Throughput and efficiency of the excluded_runs alone: what the charts draw as a cross where the cap has no
   * counted run. Never used in a decision. n 0 when no run was left out.
   */
  excluded_throughput: Stat.nullable().default(null),
  excluded_efficiency: Stat.nullable().default(null),
});
export type CapPoint = z.infer<typeof CapPoint>;

export const OptimumScore = z.object({
  cap_w: z.number(),
  value: z.number().nullable(),
  n: z.number().int(),
  /** Welch t-test p-value against the best cap (null: untested). */
  p_value: z.number().nullable(),
  /** Time per unit relative to the reference cap, minus 1 (min-energy-slowdown). */
  slowdown: z.number().nullable(),
  feasible: z.boolean(),
});
export type OptimumScore = z.infer<typeof OptimumScore>;

export const CapComparison = z.object({
  cap_w: z.number(),
  verdict: z.enum(['best', 'equivalent', 'worse', 'undetermined']),
  /** Relative difference to the best cap's score; negative is worse, whatever the direction. */
  rel_diff: z.number(),
  /** Confidence interval of rel_diff (null: fewer than 2 repetitions on either side). */
  ci: z.tuple([z.number(), z.number()]).nullable(),
  /** Repetitions per cap that would likely settle an undetermined cap (null where none are needed or none can). */
  repetitions_needed: z.number().int().nullable(),
  /** 'pooled': one run at this cap, its interval from the run-to-run spread pooled over the caps with repetitions. */
  spread: z.literal('pooled').optional(),
});
export type CapComparison = z.infer<typeof CapComparison>;

/** Each cap against the best: a confidence interval of the difference against a practical margin. */
export const Equivalence = z.object({
  margin: z.number(),
  /** Family-wise: each interval is at 1 − 2·alpha/m, so all m verdicts hold together with probability ≥ 1 − alpha. */
  alpha: z.number(),
  comparisons_m: z.number().int(),
  interval_level: z.number(),
  correction: z.string(),
  equivalent_caps: z.array(z.number()),
  undetermined_caps: z.array(z.number()),
  worse_caps: z.array(z.number()),
  candidate_caps: z.array(z.number()),
  caps: z.array(CapComparison),
  statement: z.string(),
});
export type Equivalence = z.infer<typeof Equivalence>;

export const Optimum = z.object({
  selector: Selector,
  cap_w: z.number().nullable(),
  value: z.number().nullable(),
  metric: z.string(),
  direction: z.enum(['max', 'min']),
  /**
   * Caps (incl. the best) that may be the best: not shown worse than it by more than the margin (equivalence.
   * candidate_caps; before issue #14 it was a failed Welch test). null: a single repetition at the best cap.
   */
  indistinguishable_caps: z.array(z.number()).nullable(),
  /** Caps that could not be tested (fewer than 2 repetitions). */
  untested_caps: z.array(z.number()),
  range_w: z.tuple([z.number(), z.number()]).nullable(),
  /** The best cap is the lowest or highest eligible cap of the grid (the true optimum may lie outside). */
  at_edge: z.enum(['low', 'high', 'single']).nullable(),
  excluded_caps: z.array(z.object({ cap_w: z.number(), reason: z.string() })),
  reference_cap_w: z.number().nullable(),
  scores: z.array(OptimumScore),
  note: z.string().nullable(),
  /** How reference_cap_w's throughput was found: measured, interpolated, extrapolated, or the highest cap measured. */
  reference_basis: z.string().nullable().default(null),
  /** Each feasible cap against the best with the margin and correction stated; null with one repetition at the best. */
  equivalence: Equivalence.nullable().default(null),
  /** What the answer rests on: "2 of 3 caps valid" (valid: usable, enforced, not flagged out). */
  basis: z.string().default(''),
  /** The valid caps the selector compared, W. */
  valid_caps: z.array(z.number()).default([]),
  /** Caps of the group, valid or not. */
  cap_count: z.number().int().default(0),
  /**
   * Why there is no best cap (cap_w null): too few valid caps (fewer than 2), the slowdown reference not valid, no
   * cap within the budget. null when there is an answer.
   */
  no_answer_reason: z.string().nullable().default(null),
  /** What would give an answer, from the flags and the runs' measured ramp ("warm-up too short for vit_l_16: at least ~40 s"). */
  fix: z.string().nullable().default(null),
});
export type Optimum = z.infer<typeof Optimum>;

export const SensitivityRow = z.object({
  overhead_w: z.number(),
  best: z.record(z.string(), z.number().nullable()),
  /** Efficiency (units/J) at the max-efficiency best cap. */
  efficiency: z.number().nullable(),
});
export type SensitivityRow = z.infer<typeof SensitivityRow>;

export const Sensitivity = z.object({
  from_w: z.number(),
  to_w: z.number(),
  step_w: z.number(),
  /** Every step (curve points). */
  curve: z.array(SensitivityRow),
  /** Every 50 W (and the ends): the table for reports. */
  table: z.array(SensitivityRow),
  /** Overheads where a selector's best cap changes: between overhead_lo and overhead_hi. */
  changes: z.array(z.object({ selector: Selector, overhead_lo: z.number(), overhead_hi: z.number(), from_cap_w: z.number().nullable(), to_cap_w: z.number().nullable() })),
  note: z.string(),
});
export type Sensitivity = z.infer<typeof Sensitivity>;

export const ParetoPoint = z.object({
  label: z.string(),
  cap_w: z.number(),
  throughput: z.number(),
  efficiency: z.number(),
  on_front: z.boolean(),
});
export type ParetoPoint = z.infer<typeof ParetoPoint>;

export const ParetoResult = z.object({
  points: z.array(ParetoPoint),
  /** Front, ascending throughput. */
  front: z.array(ParetoPoint),
});
export type ParetoResult = z.infer<typeof ParetoResult>;

export const RefineProposal = z.object({
  best_cap_w: z.number().nullable(),
  /** Measured neighbours around the best: the optimum lies inside (for a unimodal curve). */
  bracket: z.tuple([z.number(), z.number()]).nullable(),
  width_w: z.number().nullable(),
  target_width_w: z.number(),
  done: z.boolean(),
  reason: z.enum(['converged', 'budget', 'granularity', 'no-data', 'continue']),
  next_caps: z.array(z.number()),
  runs_left: z.number().int(),
  note: z.string().nullable(),
});
export type RefineProposal = z.infer<typeof RefineProposal>;

export const AnalysisGroup = z.object({
  workload: z.string(),
  device_model: z.string(),
  units: z.string().nullable(),
  caps: z.array(CapPoint),
  /** The optimum under each selector. */
  optima: z.record(Selector, Optimum),
  /** The optimum under the selector asked for. */
  best: Optimum,
  sensitivity: Sensitivity,
  pareto: ParetoResult,
  drift: z.object({ throughput: Trend.nullable(), temp_c: Trend.nullable(), flagged: z.boolean() }),
  refine: RefineProposal.nullable(),
  notes: z.array(z.string()),
  /**
   * The slowdown reference ("uncapped") every face measures slowdowns against: the default limit, else the highest
   * cap. valid false: it was measured at a cap that is not valid (or cannot be extrapolated), and reason says why.
   */
  reference: z
    .object({ cap_w: z.number(), throughput: z.number().nullable(), basis: z.string(), valid: z.boolean(), reason: z.string().nullable() })
    .nullable()
    .default(null),
  /** What a units/J figure's energy includes: "GPU + 100 W node overhead", "GPU + measured CPU". */
  energy_basis: z.string().default(''),
});
export type AnalysisGroup = z.infer<typeof AnalysisGroup>;

export const AnalysisResult = z.object({
  schema: z.literal('caplab.analysis/1'),
  sweep_id: z.number().int().nullable(),
  name: z.string().nullable(),
  options: AnalysisOptions.extend({ overhead_w: z.number() }),
  runs: z.array(RunAnalysis),
  groups: z.array(AnalysisGroup),
  warnings: z.array(z.string()),
  /** A stored sweep with plan `adaptive`: the device time it took and what adaptivity saved; absent otherwise. */
  adaptive: AdaptiveSummary.nullable().optional(),
  /** With a tariff (src/shared/cost.ts): cost and kg CO2e of the measured node energy per run, per cap and in total. */
  cost: SweepCost.nullable().optional(),
});
export type AnalysisResult = z.infer<typeof AnalysisResult>;

export const ComparisonEntry = z.object({
  label: z.string(),
  throughput: z.number().nullable(),
  efficiency: z.number().nullable(),
  power_w: z.number().nullable(),
  /** (value - baseline) / baseline; null where either is missing. */
  rel_throughput: z.number().nullable(),
  rel_efficiency: z.number().nullable(),
  rel_power: z.number().nullable(),
  eligible: z.boolean(),
});
export type ComparisonEntry = z.infer<typeof ComparisonEntry>;

export const Comparison = z.object({
  workload: z.string(),
  baseline: z.string(),
  sweeps: z.array(z.object({ label: z.string(), device_model: z.string(), best: z.record(z.string(), z.number().nullable()), peak_efficiency: z.number().nullable() })),
  rows: z.array(z.object({ cap_w: z.number(), entries: z.array(ComparisonEntry) })),
  pareto: ParetoResult,
  notes: z.array(z.string()),
});
export type Comparison = z.infer<typeof Comparison>;
