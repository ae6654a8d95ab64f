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
