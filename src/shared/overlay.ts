import { z } from 'zod';
import { Series } from './records';
import { SourceRef } from './source';

/** The metrics an overlay draws, one subplot each. */
export const OverlayMetric = z.enum(['power_w', 'sm_clock_mhz', 'temp_c', 'throughput']);
export type OverlayMetric = z.infer<typeof OverlayMetric>;

/** A phase of a run on the overlay's time axis (seconds from its window start). */
export const OverlayPhase = z.object({ phase: z.enum(['warmup', 'measure', 'cooldown']), from: z.number(), to: z.number() });
export type OverlayPhase = z.infer<typeof OverlayPhase>;

/**
 * One run or dataset segment of an overlay: its series with t in seconds from its measurement window's start (so
 * every source's window starts at 0), its phases on the same axis, and what it names itself by in a legend.
 */
export const OverlaySource = z.object({
  source: SourceRef,
  /** Legend name: sweep, workload, cap and repetition of a run; dataset, segment, workload and cap of a segment. */
  label: z.string(),
  sweep_id: z.number().int().nullable(),
  sweep_name: z.string().nullable(),
  dataset_id: z.number().int().nullable(),
  dataset_name: z.string().nullable(),
  workload: z.string().nullable(),
  cap_w: z.number().nullable(),
  repetition: z.number().int().nullable(),
  simulated: z.boolean(),
  /** Epoch seconds of the window start (0 on the time axis); null when the source could not be read. */
  window_start: z.number().nullable(),
  phases: z.array(OverlayPhase),
  devices: z.array(z.object({ device_id: z.string(), name: z.string(), power_w: Series, sm_clock_mhz: Series, temp_c: Series })),
  /** Work units per second over all the source's GPUs; units names them. */
  throughput: Series,
  units: z.string().nullable(),
  /** The metrics this source did not record, each with why: a plot says so rather than drawing 0. */
  missing: z.array(z.object({ metric: OverlayMetric, why: z.string() })),
  /** Why the source could not be read (not stored, never started); the others still come back. */
  error: z.string().nullable(),
});
export type OverlaySource = z.infer<typeof OverlaySource>;

/** The most sources one overlay call takes (legends and subplots stay readable well below it). */
export const MAX_OVERLAY_SOURCES = 24;

/** A source as the Overlay page's route names it: `r12` (run 12) or `s4` (stored segment 4). */
export type OverlayRef = { kind: 'run' | 'segment'; id: number };

/** `#/overlay/r12,r15,s4`: the route parameter of the sources picked, in order. */
export function overlayParam(refs: readonly OverlayRef[]): string {
  return refs.map((r) => `${r.kind === 'run' ? 'r' : 's'}${r.id}`).join(',');
}

/** The sources a route parameter names (duplicates dropped), or what in it is not one. */
export function parseOverlayParam(param: string): { refs: OverlayRef[]; bad: string[] } {
  const refs: OverlayRef[] = [];
  const bad: string[] = [];
  for (const part of param.split(',').filter((p) => p !== '')) {
    const m = /^([rs])(\d+)$/.exec(part);
    if (!m) bad.push(part);
    else if (!refs.some((r) => r.kind === (m[1] === 'r' ? 'run' : 'segment') && r.id === Number(m[2]))) refs.push({ kind: m[1] === 'r' ? 'run' : 'segment', id: Number(m[2]) });
  }
  return { refs, bad };
}
