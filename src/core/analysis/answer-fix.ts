// What would give a best cap when there is none: derived from the flags that left runs or caps out and from the
// runs' measured ramp (the detected warm-up end against the workload's first step), never a fixed hint.
import type { CapPoint, RunAnalysis } from '../../shared/analysis';

/** Round a needed time up to a plan-friendly figure (5 s steps, 10 s above a minute). */
function roundUp(s: number): number {
  const step = s > 60 ? 10 : 5;
  return Math.ceil(s / step) * step;
}

/**
 * The warm-up the runs say they need, s from the first step: a detected warm-up end inside the window is a measured
 * ramp (kept with 50 % margin); a run that never settled was still ramping at the window's end, so at least twice
 * that. null when no run left out shows a ramp problem.
 */
export function neededWarmup(runs: readonly RunAnalysis[]): { needed_s: number; used_s: number | null; ramp_s: number; settled: boolean } | null {
  let ramp = 0;
  let needed = 0;
  let used: number | null = null;
  let settled = true;
  for (const r of runs) {
    const ss = r.steady_state;
    if (!r.window || ss.first_step_t === null) continue;
    const hit = r.flags.includes('warmup-in-window') || r.flags.includes('no-steady-state');
    if (!hit) continue;
    used = Math.max(used ?? 0, r.window.start - ss.first_step_t);
    if (r.flags.includes('warmup-in-window') && ss.warmup_end !== null) {
      const rs = ss.warmup_end - ss.first_step_t;
      ramp = Math.max(ramp, rs);
      needed = Math.max(needed, rs * 1.5);
    }
    if (r.flags.includes('no-steady-state')) {
      const rs = r.window.end - ss.first_step_t;
      settled = false;
      ramp = Math.max(ramp, rs);
      needed = Math.max(needed, rs * 2);
    }
  }
  return needed > 0 ? { needed_s: roundUp(needed), used_s: used, ramp_s: ramp, settled } : null;
}

/** The fix for a group without an answer, or null when nothing in the flags points at one. */
export function answerFix(workload: string, runs: readonly RunAnalysis[], caps: readonly CapPoint[]): string | null {
  const fixes: string[] = [];
  const w = neededWarmup(runs);
  if (w) {
    const used = w.used_s !== null ? `; the plan's was ${+w.used_s.toFixed(1)} s` : '';
    const seen = w.settled ? `its runs' warm-up ended ${+w.ramp_s.toFixed(1)} s after the first step` : `its runs were still ramping ${+w.ramp_s.toFixed(1)} s after the first step`;
    fixes.push(`warm-up too short for ${workload}: at least ~${w.needed_s} s (${seen}${used}); rerun the flagged caps with it`);
  }
  const unenforced = caps.filter((c) => !c.eligible && c.enforcement.enforced === false).map((c) => c.cap_w);
  if (unenforced.length) fixes.push(`caps ${unenforced.join(', ')} W were not enforced by the device: check the backend's permissions, or count them with --include-unenforced`);
  const failed = caps.filter((c) => !c.eligible && c.n_usable === 0 && c.excluded_runs.length === 0 && c.run_ids.length > 0).map((c) => c.cap_w);
  if (failed.length) fixes.push(`runs at ${failed.join(', ')} W have no usable figure (failed, or no energy or throughput): see their errors and rerun them`);
  if (caps.length < 2) fixes.push('measure at least 2 caps');
  return fixes.length ? fixes.join('; ') : null;
}
