// Overlay alignment, pure: where a run's or segment's phases lie relative to its measurement window's start, series
// moved onto that axis, throughput from a dataset's work-unit steps, and the legend names that tell sources apart.
import { decimateMinMax, type XY } from './decimate';
import type { OverlayPhase } from '../shared/overlay';

/** A run's stored phase edges (epoch seconds; null where the run never got there). */
export interface RunEdges {
  started_at: number | null;
  warmup_end: number | null;
  measure_start: number | null;
  measure_end: number | null;
  ended_at: number | null;
}

export interface Aligned {
  /** Epoch seconds of 0 on the overlay's axis. */
  window_start: number;
  /** Epoch range of samples to read. */
  from: number;
  to: number;
  phases: OverlayPhase[];
}

/**
 * A run's phases relative to its window start. The window starts at measure_start (else the warm-up end, else the
 * run's start: a run that failed in warm-up is still drawn). Cool-down runs from the window's end (the workload's
 * stop included) to `cooldownEnd`; null: none was recorded. Returns null for a run that never started.
 */
export function alignRun(run: RunEdges, cooldownEnd: number | null): Aligned | null {
  if (run.started_at === null) return null;
  const t0 = run.measure_start ?? run.warmup_end ?? run.started_at;
  const end = run.measure_end ?? run.ended_at ?? t0;
  const to = Math.max(end, run.ended_at ?? end, cooldownEnd ?? end);
  const phases: OverlayPhase[] = [];
  const add = (phase: OverlayPhase['phase'], a: number, b: number) => {
    if (b > a) phases.push({ phase, from: a - t0, to: b - t0 });
  };
  add('warmup', run.started_at, t0);
  if (run.measure_start !== null && run.measure_end !== null) add('measure', run.measure_start, run.measure_end);
  add('cooldown', end, to);
  return { window_start: t0, from: run.started_at, to, phases };
}

/** A dataset segment: its window is the measurement (a segment has no warm-up or cool-down of its own). */
export function alignSegment(start: number, end: number): Aligned {
  return { window_start: start, from: start, to: end, phases: end > start ? [{ phase: 'measure', from: 0, to: end - start }] : [] };
}

/** A series moved onto the overlay's axis (seconds from t0). */
export function shift(s: XY, t0: number): XY {
  return { t: s.t.map((t) => t - t0), v: s.v };
}

/** True when a series has at least one reading (an all-null or empty series is "not recorded", never 0). */
export function recorded(s: XY): boolean {
  return s.v.some((v) => v !== null);
}

/**
 * Work units per second per GPU from a dataset's work-unit steps (units done at t since the step before), decimated.
 * The first step has no interval before it and gives no point.
 */
export function rateOfSteps(steps: readonly { t: number; value: number }[], gpus: number, maxPoints: number): XY {
  const t: number[] = [];
  const v: number[] = [];
  for (let i = 1; i < steps.length; i++) {
    const dt = steps[i]!.t - steps[i - 1]!.t;
    if (dt > 0) {
      t.push(steps[i]!.t);
      v.push(steps[i]!.value / dt / Math.max(1, gpus));
    }
  }
  return decimateMinMax(t, v, maxPoints);
}

/** "#3 name · vit_l_16 · 300 W · r2": sweep, workload, cap and repetition (the name shortened, never the numbers). */
export function runLabel(r: { sweep_id: number; sweep_name: string; workload: string; cap_w: number; repetition: number }): string {
  return `#${r.sweep_id} ${short(r.sweep_name)} · ${r.workload} · ${r.cap_w} W · r${r.repetition}`;
}

/** "dataset #2 name · segment 5 label · workload · 300 W": what tells one segment from another. */
export function segmentLabel(s: { dataset_id: number; dataset_name: string; segment: string; workload: string | null; cap_w: number | null }): string {
  return [`dataset #${s.dataset_id} ${short(s.dataset_name)}`, s.segment, s.workload, s.cap_w === null ? null : `${s.cap_w} W`].filter((x) => x !== null).join(' · ');
}

function short(name: string): string {
  return name.length > 40 ? `${name.slice(0, 39)}…` : name;
}
