import type { Plan, PlanInput } from '../../shared/plan';
import type { BackendChoice } from '../../shared/device';

/** The designer's editable form: friendlier than the plan schema (caps mode, text params); converted both ways. */
export interface WorkloadRow {
  id: string;
  /** key/value rows; values are parsed into numbers and booleans where they look like them. */
  params: { key: string; value: string }[];
  runtime: 'native' | 'docker' | 'podman' | 'apptainer';
}

export type CapsMode = 'grid' | 'list' | 'adaptive';

export interface PlanForm {
  name: string;
  backend: BackendChoice;
  devices: number[];
  workloads: WorkloadRow[];
  capsMode: CapsMode;
  grid: { from: number; to: number; step: number };
  list: string;
  adaptive: { from: number; to: number; step: number; width_w: number; max_runs: number };
  repetitions: number;
  order: 'sequential' | 'randomized';
  seed: number;
  warmupKind: 'seconds' | 'steps';
  warmup: number;
  windowKind: 'seconds' | 'steps';
  window: number;
  cooldown_s: number;
  sample_interval_ms: number;
  overhead_w: number;
  observe_only: boolean;
  on_failure: 'continue' | 'stop';
  hang_timeout_s: number;
  run_timeout_s: number;
  simSpeedup: number;
  /** Comma-separated simulated presets, one per device; empty = the backend's default. */
  simDevices: string;
  /** Plan `adaptive`: which parts are on, their figures; budget 0 = none. */
  stopEarly: StopEarlyForm;
}

export interface StopEarlyForm {
  window: boolean;
  ci_target_pct: number;
  min_s: number;
  cooldown: boolean;
  cooldownRule: { temp_band_c: number; power_band_w: number; flat_c_per_min: number; check_s: number };
  repetitions: boolean;
  max_per_cap: number;
  /** adaptive.repetitions.pool_single: judge caps measured once on the pooled run-to-run spread. */
  pool_single: boolean;
  margin_pct: number;
  confidence_pct: number;
  budget_gpu_h: number;
  budget_runs: number;
}

export const defaultStopEarly = (): StopEarlyForm => ({
  window: false,
  ci_target_pct: 1,
  min_s: 10,
  cooldown: false,
  cooldownRule: { temp_band_c: 5, power_band_w: 20, flat_c_per_min: 0.5, check_s: 2 },
  repetitions: false,
  max_per_cap: 5,
  pool_single: true,
  margin_pct: 2,
  confidence_pct: 95,
  budget_gpu_h: 0,
  budget_runs: 0,
});

/** The form's adaptive part as plan `adaptive`; undefined when nothing of it is on. */
export function stopEarlyToPlan(a: StopEarlyForm): Plan['adaptive'] {
  if (!a.window && !a.cooldown && !a.repetitions) return undefined;
  const budget: { gpu_s?: number; runs?: number } = {};
  if (a.budget_gpu_h > 0) budget.gpu_s = Math.round(a.budget_gpu_h * 3600);
  if (a.budget_runs > 0) budget.runs = a.budget_runs;
  return {
    ...(a.window ? { window: { ci_target: a.ci_target_pct / 100, min_s: a.min_s } } : {}),
    ...(a.cooldown ? { cooldown: { ...a.cooldownRule } } : {}),
    ...(a.repetitions ? { repetitions: { max_per_cap: a.max_per_cap, pool_single: a.pool_single } } : {}),
    margin: a.margin_pct / 100,
    confidence: a.confidence_pct / 100,
    budget,
  };
}

function stopEarlyFromPlan(p: Plan['adaptive']): StopEarlyForm {
  const d = defaultStopEarly();
  if (!p) return d;
  const pct = (x: number) => Math.round(x * 1e6) / 1e4;
  return {
    window: !!p.window,
    ci_target_pct: p.window ? pct(p.window.ci_target) : d.ci_target_pct,
    min_s: p.window?.min_s ?? d.min_s,
    cooldown: !!p.cooldown,
    cooldownRule: p.cooldown ? { ...p.cooldown } : d.cooldownRule,
    repetitions: !!p.repetitions,
    max_per_cap: p.repetitions?.max_per_cap ?? d.max_per_cap,
    pool_single: p.repetitions?.pool_single ?? d.pool_single,
    margin_pct: pct(p.margin),
    confidence_pct: pct(p.confidence),
    budget_gpu_h: p.budget.gpu_s !== undefined ? p.budget.gpu_s / 3600 : 0,
    budget_runs: p.budget.runs ?? 0,
  };
}

export const defaultForm = (): PlanForm => ({
  name: 'my sweep',
  backend: 'auto',
  devices: [0],
  workloads: [{ id: 'vit_l_16', params: [{ key: 'batch_size', value: '64' }], runtime: 'native' }],
  capsMode: 'grid',
  grid: { from: 200, to: 700, step: 100 },
  list: '200, 300, 400, 500, 600, 700',
  adaptive: { from: 200, to: 700, step: 100, width_w: 25, max_runs: 12 },
  repetitions: 2,
  order: 'randomized',
  seed: 1,
  warmupKind: 'seconds',
  warmup: 20,
  windowKind: 'seconds',
  window: 40,
  cooldown_s: 10,
  sample_interval_ms: 100,
  overhead_w: 100,
  observe_only: false,
  on_failure: 'continue',
  hang_timeout_s: 120,
  run_timeout_s: 3600,
  simSpeedup: 40,
  simDevices: '',
  stopEarly: defaultStopEarly(),
});

export function parseParamValue(v: string): string | number | boolean {
  const s = v.trim();
  if (s === 'true') return true;
  if (s === 'false') return false;
  if (s !== '' && /^-?\d+(\.\d+)?(e-?\d+)?$/i.test(s)) return Number(s);
  return s;
}

export function parseCapList(text: string): number[] {
  return text
    .split(/[\s,;]+/)
    .filter(Boolean)
    .map(Number);
}

/** Form -> plan object (validated by the engine, not here: the engine's messages name the fields). */
export function formToPlan(f: PlanForm): PlanInput {
  const caps =
    f.capsMode === 'grid'
      ? { ...f.grid }
      : f.capsMode === 'list'
        ? parseCapList(f.list)
        : { adaptive: { ...f.adaptive } };
  const sim: { speedup: number; devices?: string[] } = { speedup: f.simSpeedup };
  const presets = f.simDevices.split(/[\s,]+/).filter(Boolean);
  if (presets.length) sim.devices = presets;
  return {
    name: f.name,
    backend: f.backend,
    devices: [...f.devices].sort((a, b) => a - b),
    workloads: f.workloads.map((w) => ({
      id: w.id,
      params: Object.fromEntries(w.params.filter((p) => p.key.trim()).map((p) => [p.key.trim(), parseParamValue(p.value)])),
      runtime: w.runtime,
    })),
    caps,
    repetitions: f.repetitions,
    order: f.order,
    seed: f.seed,
    warmup: f.warmupKind === 'seconds' ? { seconds: f.warmup } : { steps: f.warmup },
    window: f.windowKind === 'seconds' ? { seconds: f.window } : { steps: f.window },
    cooldown_s: f.cooldown_s,
    sample_interval_ms: f.sample_interval_ms,
    overhead_w: f.overhead_w,
    observe_only: f.observe_only,
    on_failure: f.on_failure,
    hang_timeout_s: f.hang_timeout_s,
    run_timeout_s: f.run_timeout_s,
    sim,
    ...(stopEarlyToPlan(f.stopEarly) ? { adaptive: stopEarlyToPlan(f.stopEarly) } : {}),
  } as PlanInput;
}

/** Plan (as the engine returns it, defaults filled) -> form. */
export function planToForm(p: Plan): PlanForm {
  const d = defaultForm();
  const f: PlanForm = {
    ...d,
    name: p.name,
    backend: p.backend,
    devices: [...p.devices],
    workloads: p.workloads.map((w) => ({
      id: w.id,
      params: Object.entries(w.params ?? {}).map(([key, value]) => ({ key, value: Array.isArray(value) ? value.join(' ') : String(value) })),
      runtime: w.runtime,
    })),
    repetitions: p.repetitions,
    order: p.order,
    seed: p.seed,
    warmupKind: 'seconds' in p.warmup ? 'seconds' : 'steps',
    warmup: 'seconds' in p.warmup ? p.warmup.seconds : p.warmup.steps,
    windowKind: 'seconds' in p.window ? 'seconds' : 'steps',
    window: 'seconds' in p.window ? p.window.seconds : p.window.steps,
    cooldown_s: p.cooldown_s,
    sample_interval_ms: p.sample_interval_ms,
    overhead_w: p.overhead_w,
    observe_only: p.observe_only,
    on_failure: p.on_failure,
    hang_timeout_s: p.hang_timeout_s,
    run_timeout_s: p.run_timeout_s,
    simSpeedup: p.sim?.speedup ?? 1,
    simDevices: (p.sim?.devices ?? []).join(', '),
    stopEarly: stopEarlyFromPlan(p.adaptive),
  };
  const caps = p.caps;
  if (Array.isArray(caps)) {
    f.capsMode = 'list';
    f.list = caps.join(', ');
  } else if ('adaptive' in caps) {
    f.capsMode = 'adaptive';
    f.adaptive = { ...caps.adaptive };
  } else {
    f.capsMode = 'grid';
    f.grid = { from: caps.from, to: caps.to, step: caps.step };
  }
  return f;
}
