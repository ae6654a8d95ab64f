// One run measured over its window: energy per device and node, throughput, efficiency, steady state,
// enforcement, clocks. Everything the per-cap statistics need, computed once per run.
import type { AnalysisFlag, AnalysisRun, EnergyResult, RunAnalysis, SteadySeries, SteadyState, StepPoint, TimeWindow } from '../../shared/analysis';
import { windowClocks } from './clocks';
import { checkEnforcement } from './enforcement';
import { windowEnergy } from './energy';
import { runFigures } from './figures';
import { inWindow, isReading, samplePower, windowValid, type PowerSample } from './series';
import { percentile, trend } from './stats';
import { detectSteadyState } from './steady-state';

export interface RunOptions {
  overhead_w: number;
  use_measured_cpu: boolean;
  enforce_tol_frac: number;
  enforce_tol_w: number;
}

/** Work units done inside the window: each step's units spread evenly over (t - dt, t], counted by overlap. */
export function unitsInWindow(steps: readonly StepPoint[], w: TimeWindow): number | null {
  const s = steps.filter((p) => Number.isFinite(p.t) && Number.isFinite(p.units) && p.units >= 0).sort((a, b) => a.t - b.t);
  if (s.length === 0) return null;
  const gaps: number[] = [];
  for (let i = 1; i < s.length; i++) gaps.push(s[i]!.t - s[i - 1]!.t);
  gaps.sort((a, b) => a - b);
  const typical = gaps.length ? gaps[Math.floor(gaps.length / 2)]! : 0;
  let total = 0;
  for (let i = 0; i < s.length; i++) {
    const p = s[i]!;
    const dt = p.dt !== null && p.dt > 0 ? p.dt : i > 0 ? p.t - s[i - 1]!.t : typical;
    if (!(dt > 0)) {
      if (p.t >= w.start && p.t <= w.end) total += p.units;
      continue;
    }
    const overlap = Math.max(0, Math.min(p.t, w.end) - Math.max(p.t - dt, w.start));
    total += (p.units * overlap) / dt;
  }
  return total;
}

function steadyOf(t: number[], v: number[]): SteadySeries & { batch: number } {
  const batch = t.length >= 50 ? 5 : 1;
  return { ...detectSteadyState(t, v, { batch, min_batches: 10 }), batch };
}

/** Relative bias of the window mean vs the mean after `from` (inside the window): what including warm-up costs. */
function windowBias(t: readonly number[], v: readonly number[], w: TimeWindow, from: number): number | null {
  let sAll = 0;
  let nAll = 0;
  let sSteady = 0;
  let nSteady = 0;
  for (let i = 0; i < t.length; i++) {
    if (t[i]! < w.start || t[i]! > w.end) continue;
    sAll += v[i]!;
    nAll++;
    if (t[i]! >= from) {
      sSteady += v[i]!;
      nSteady++;
    }
  }
  if (nAll === 0 || nSteady === 0 || sSteady === 0) return null;
  return Math.abs(sAll / nAll / (sSteady / nSteady) - 1);
}

/** Relative change across the window from a least-squares line (|slope| * duration / mean). */
function windowTrend(t: readonly number[], v: readonly number[], w: TimeWindow): number | null {
  const x: number[] = [];
  const y: number[] = [];
  for (let i = 0; i < t.length; i++)
    if (t[i]! >= w.start && t[i]! <= w.end) {
      x.push(t[i]!);
      y.push(v[i]!);
    }
  const r = trend(x, y);
  if (!r) return null;
  const m = y.reduce((a, b) => a + b, 0) / y.length;
  return m !== 0 ? Math.abs((r.slope * (w.end - w.start)) / m) : null;
}

/** A warm-up inside the window matters when it moves the window mean by more than this (1 %). */
const WARMUP_BIAS_LIMIT = 0.01;
/** A run that never settles matters when its series changes by more than this (2 %) across the window. */
const WINDOW_TREND_LIMIT = 0.02;

/**
 * Steady-state detection (MSER) on the run's throughput (step rates) and power series, from the workload's first
 * step (idle time before it, e.g. model loading, is not warm-up) to the end of the measurement window (teardown
 * after it is not either). The flags only fire when it matters for the window: a warm-up that moves the window mean
 * by more than 1 %, or a series that still changes by more than 2 % across the window.
 */
export function runSteadyState(run: AnalysisRun): SteadyState {
  const notes: string[] = [];
  const w = windowValid(run.window) ? run.window : null;
  const tEnd = w ? w.end : Infinity;
  const steps = run.steps.filter((p) => Number.isFinite(p.t) && Number.isFinite(p.units) && p.t <= tEnd).sort((a, b) => a.t - b.t);
  const first = steps[0];
  const tStart = first ? first.t - (first.dt !== null && first.dt > 0 ? first.dt : 0) : (run.started_at ?? -Infinity);
  const raw: { t: number[]; v: number[]; s: SteadySeries }[] = [];
  let throughput: SteadyState['throughput'] = null;
  const methods = new Set<string>();
  if (steps.length) {
    const t: number[] = [];
    const v: number[] = [];
    steps.forEach((p, i) => {
      const dt = p.dt !== null && p.dt > 0 ? p.dt : i > 0 ? p.t - steps[i - 1]!.t : NaN;
      if (dt > 0) {
        t.push(p.t);
        v.push(p.units / dt);
      }
    });
    const { batch, ...rest } = steadyOf(t, v);
    methods.add(`MSER-${batch}`);
    throughput = rest;
    raw.push({ t, v, s: rest });
  }
  let power: SteadyState['power'] = null;
  for (const dev of run.devices) {
    const pts: { t: number; v: number }[] = [];
    for (const smp of dev.samples) {
      const p = samplePower(smp);
      if (p && Number.isFinite(smp.t) && smp.t >= tStart && smp.t <= tEnd) pts.push({ t: smp.t, v: p.v });
    }
    if (!pts.length) continue;
    pts.sort((a, b) => a.t - b.t);
    const t = pts.map((x) => x.t);
    const v = pts.map((x) => x.v);
    const { batch, ...rest } = steadyOf(t, v);
    methods.add(`MSER-${batch}`);
    raw.push({ t, v, s: rest });
    // Several GPUs: the latest warm-up end, reached only when every GPU settled.
    if (!power) power = rest;
    else
      power = {
        end_t: rest.end_t === null || power.end_t === null ? (power.end_t ?? rest.end_t) : Math.max(power.end_t, rest.end_t),
        truncate_index: rest.end_t !== null && (power.end_t === null || rest.end_t > power.end_t) ? rest.truncate_index : power.truncate_index,
        n: power.n + rest.n,
        reached: power.reached && rest.reached,
        reason: power.reason ?? rest.reason,
      };
  }
  const series = [throughput, power].filter((s): s is SteadySeries => s !== null);
  const ends = series.map((s) => s.end_t).filter((x): x is number => x !== null);
  const warmup_end = ends.length ? Math.max(...ends) : null;
  const reached = series.length ? series.every((s) => s.reached) : null;
  for (const s of series) if (s.reason) notes.push(s.reason);

  let window_bias: number | null = null;
  let window_trend: number | null = null;
  let warmup_in_window = false;
  let unsettled = reached === false;
  if (w) {
    for (const r of raw) {
      const tr = windowTrend(r.t, r.v, w);
      if (tr !== null) window_trend = Math.max(window_trend ?? 0, tr);
      if (warmup_end !== null && warmup_end > w.start) {
        const b = windowBias(r.t, r.v, w, warmup_end);
        if (b !== null) window_bias = Math.max(window_bias ?? 0, b);
      }
    }
    const tol = Math.max(1, 0.05 * (w.end - w.start));
    if (warmup_end !== null && warmup_end > w.start + tol) {
      const pct = window_bias === null ? '?' : (window_bias * 100).toFixed(1);
      if (window_bias === null || window_bias > WARMUP_BIAS_LIMIT) {
        warmup_in_window = true;
        notes.push(`detected warm-up ends ${(warmup_end - w.start).toFixed(1)} s into the measurement window; it moves the window mean by ${pct} %`);
      } else notes.push(`detected warm-up ends ${(warmup_end - w.start).toFixed(1)} s into the window but moves its mean by only ${pct} %`);
    }
    // MSER's own "never settled" verdict counts when the window still shows a material trend (or cannot be checked).
    const mserFailed = raw.some((r) => !r.s.reached && r.s.truncate_index !== null);
    if (mserFailed && window_trend !== null && window_trend <= WINDOW_TREND_LIMIT) {
      unsettled = false;
      notes.push(`MSER found no clear steady state, but the window changes by only ${(window_trend * 100).toFixed(1)} % end to end`);
    }
  }
  if (series.length === 0) notes.push('no throughput or power series to detect a steady state');
  return {
    method: [...methods].sort().reverse().join('+') || 'MSER-5',
    throughput,
    power,
    warmup_end,
    first_step_t: first ? tStart : null,
    reached,
    unsettled,
    warmup_in_window,
    window_bias,
    window_trend,
    notes,
  };
}

function median(xs: number[]): number | null {
  return xs.length ? percentile(xs, 0.5) : null;
}

/** Measures one run. Never throws on bad data: missing parts are null with a flag and a warning. */
export function measureRun(run: AnalysisRun, opts: RunOptions): RunAnalysis {
  const flags: AnalysisFlag[] = [];
  const warnings: string[] = [];
  const flag = (f: AnalysisFlag) => {
    if (!flags.includes(f)) flags.push(f);
  };
  const gpus = run.gpus ?? Math.max(1, run.devices.length);
  if (run.status !== 'done') {
    flag('run-failed');
    warnings.push(`run status is ${run.status}`);
  }
  const w = run.window;
  const valid = windowValid(w);
  if (!w) {
    flag('no-window');
    warnings.push('run has no measurement window');
  } else if (!valid) {
    flag('empty-window');
    warnings.push(`empty measurement window (${run.window?.start}..${run.window?.end})`);
  }
  const duration = valid ? w.end - w.start : null;

  const devices: EnergyResult[] = run.devices.map((d) => windowEnergy(d.samples, w, { device_id: d.device_id, counter_wrap_mj: d.counter_wrap_mj, counter_lag_s: d.counter_lag_s }));
  const cpu: EnergyResult[] = run.cpu.map((d) => windowEnergy(d.samples, w, { device_id: d.device_id, counter_wrap_mj: d.counter_wrap_mj }));
  for (const e of [...devices, ...cpu]) {
    for (const f of e.flags) if (f !== 'no-window' && f !== 'empty-window') flag(f);
    for (const m of e.warnings) warnings.push(`${e.device_id}: ${m}`);
    if (e.energy_j === null && valid) warnings.push(`${e.device_id}: no energy (${e.reason})`);
  }
  if (valid && run.devices.length === 0) {
    flag('missing-energy');
    warnings.push('run has no GPU sample series');
  }
  const units_total = valid
    ? run.units_in_window !== null && Number.isFinite(run.units_in_window) && run.units_in_window >= 0
      ? run.units_in_window
      : unitsInWindow(run.steps, w)
    : null;
  const figures = runFigures({ duration_s: duration, units_in_window: units_total, gpus, gpu: devices, cpu, overhead_w: opts.overhead_w, use_measured_cpu: opts.use_measured_cpu });
  const { node, throughput, efficiency, energy_per_unit_j } = figures;
  if (node) for (const m of node.warnings) if (!warnings.includes(m)) warnings.push(m);
  if (node && node.energy_j === null) flag('missing-energy');
  if (valid && units_total === null) {
    flag('missing-throughput');
    warnings.push('no work units recorded in the window');
  }
  const gpu_j = figures.gpu_energy_j;
  const sensors = [...new Set(devices.map((d) => d.sensor).filter((s) => s !== null))];

  const steady_state = runSteadyState(run);
  if (steady_state.unsettled) {
    // Too-short series only count when nothing else could show a steady state.
    const realFail = [steady_state.throughput, steady_state.power].some((s) => s && !s.reached && s.truncate_index !== null);
    const allShort = [steady_state.throughput, steady_state.power].every((s) => !s || (!s.reached && s.truncate_index === null));
    if (realFail || allShort) flag('no-steady-state');
  }
  if (steady_state.warmup_in_window) flag('warmup-in-window');

  const enforcement = checkEnforcement(
    run.cap_w,
    run.devices.map((d, i) => {
      const inside = valid ? inWindow(d.samples as PowerSample[], w) : [];
      return {
        device_id: d.device_id,
        powers: inside.map((s) => samplePower(s)?.v).filter((v): v is number => v !== undefined),
        mean_w: devices[i]?.mean_w ?? null,
        limit_w: median(inside.map((s) => s.limit_w).filter(isReading)),
      };
    }),
    run.enforced_limit_w,
    { tol_frac: opts.enforce_tol_frac, tol_w: opts.enforce_tol_w },
  );
  for (const f of enforcement.flags) flag(f);

  const clocks = windowClocks(
    run.devices.map((d) => d.samples as PowerSample[]),
    valid ? w : null,
  );
  const temps = valid
    ? run.devices
        .map((d) => {
          const v = inWindow(d.samples as PowerSample[], w)
            .map((s) => s.temp_c)
            .filter((x): x is number => typeof x === 'number' && Number.isFinite(x));
          return v.length ? v.reduce((a, b) => a + b, 0) / v.length : null;
        })
        .filter((x): x is number => x !== null)
    : [];
  const usable = run.status === 'done' && throughput !== null && efficiency !== null && Number.isFinite(efficiency);
  return {
    run_id: run.run_id,
    source: run.source ?? { kind: 'run', id: run.run_id },
    workload: run.workload,
    device_model: run.device_model,
    cap_w: run.cap_w,
    repetition: run.repetition,
    status: run.status,
    window: w && Number.isFinite(w.start) && Number.isFinite(w.end) ? { start: w.start, end: w.end } : null,
    duration_s: duration,
    units: run.units,
    units_total,
    gpus,
    throughput,
    gpu_energy_j: gpu_j,
    node,
    mean_power_w: figures.mean_power_w,
    node_power_w: figures.node_power_w,
    efficiency,
    energy_per_unit_j,
    energy_sensor: sensors.length === 0 ? null : sensors.length === 1 ? sensors[0]! : 'mixed',
    devices,
    cpu,
    steady_state,
    enforcement,
    clocks,
    temp_c: temps.length ? temps.reduce((a, b) => a + b, 0) / temps.length : null,
    usable,
    flags,
    warnings,
  };
}
