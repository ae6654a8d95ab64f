// A tuning session's end report (`caplab tune --json`) and the same in words: what `caplab tune` prints at the end
// and what the session stores with its sweep (History, Results, `caplab runs` show it later), so both say the same.
import type { Estimate, Savings } from '../../../core/tune/savings';
import type { Hold, TuneVisit } from '../../../core/tune/search';
import type { describe } from '../../../core/analysis/stats';
import type { Selector } from '../../../shared/analysis';
import type { CapRestore } from '../../../shared/records';
import type { TuneOutcome } from '../../../shared/tune';

export interface CapProfile {
  cap_w: number;
  visits: number;
  throughput: ReturnType<typeof describe>;
  efficiency: ReturnType<typeof describe>;
  power_w: ReturnType<typeof describe>;
}

/** The end report (`caplab tune --json`): a public scripting interface, add fields, never rename. */
export interface TuneReport {
  sweep_id: number;
  status: 'done' | 'refused' | 'failed' | 'cancelled';
  error: string | null;
  simulated: boolean;
  selector: Selector;
  adapter: string | null;
  units: string | null;
  devices: string[];
  default_limit_w: number;
  cap_held_w: number | null;
  hold_reason: Hold['reason'] | null;
  hold_note: string | null;
  job_exit_code: number | null;
  /** CapLab ended the job (a hang, a refusal, an error of the session, a signal): its exit code is CapLab's doing. */
  job_ended_by_caplab: boolean;
  job_seconds: number;
  energy_j: number | null;
  /** GPU energy from the start of the job's first counted step to its end (start-up left out), J. */
  energy_after_first_step_j: number | null;
  first_step_t: number | null;
  /**
   * GPU energy of the work itself: from the start of the first counted step to the end of the last, J (start-up and
   * the tail after the last step, while CapLab restores and tidies up, left out). The saving compares this stretch.
   */
  energy_of_steps_j: number | null;
  last_step_t: number | null;
  units_done: number | null;
  profiling_s: number;
  profiling_share: number;
  profiling_off_cap_s: number;
  reprofiles: number;
  phase_changes: { t: number; what: string }[];
  savings: Savings | null;
  profile: CapProfile[];
  visits: (TuneVisit & { run_id: number; phase: number })[];
  restored: CapRestore[];
}

const est = (e: Estimate | null | undefined, digits: number, scale = 1, unit = '') =>
  e ? `${(e.value * scale).toFixed(digits)}${unit} (95 % interval ${(e.ci[0] * scale).toFixed(digits)} to ${(e.ci[1] * scale).toFixed(digits)}${unit})` : '–';

// Stored as JSON, which has no NaN or Infinity (they would come back as null and fail the status's schema): an
// estimate that is not finite (a default energy's interval reaching 0) is kept as none.
const finite = (e: Estimate | null | undefined): Estimate | null => (e && [e.value, ...e.ci].every(Number.isFinite) ? e : null);

/** The report's figures that its ended status keeps (reports and CSV exports read them there). */
export function tuneOutcome(r: TuneReport): TuneOutcome {
  return {
    hold_reason: r.hold_reason,
    hold_note: r.hold_note,
    energy_j: r.energy_j !== null && Number.isFinite(r.energy_j) ? r.energy_j : null,
    saved_j: finite(r.savings?.saved_j),
    saved_fraction: finite(r.savings?.saved_fraction),
    slowdown: finite(r.savings?.slowdown),
    savings_note: r.savings?.note ?? null,
    profiling_off_cap_s: r.profiling_off_cap_s,
    reprofiles: r.reprofiles,
    phase_changes: r.phase_changes,
  };
}

export function tuneReportText(r: TuneReport): string {
  const lines = [
    `tune session ${r.sweep_id}: ${r.status}${r.simulated ? ' [simulated]' : ''}${r.error ? ` — ${r.error}` : ''}`,
    `cap held        ${r.cap_held_w ?? '–'} W${r.hold_note ? ` (${r.hold_note})` : ''}`,
    `default limit   ${r.default_limit_w} W`,
    `job             ${r.job_seconds.toFixed(0)} s, exit code ${r.job_exit_code ?? '–'}, ${r.units_done !== null ? `${r.units_done.toFixed(0)} ${r.units ?? 'units'}` : 'units –'}`,
    `energy used     ${r.energy_j !== null ? `${(r.energy_j / 3.6e6).toFixed(4)} kWh (${r.energy_j.toFixed(0)} J, GPUs, measured)` : '–'}`,
    `energy saved    ${est(r.savings?.saved_j, 0, 1, ' J')} vs the whole job at ${r.default_limit_w} W; ${est(r.savings?.saved_fraction, 1, 100, ' %')}`,
    `slowdown        ${est(r.savings?.slowdown, 1, 100, ' %')}`,
    `profiling       ${r.profiling_s.toFixed(0)} s (${(r.profiling_share * 100).toFixed(1)} % of the job), ${r.profiling_off_cap_s.toFixed(0)} s at caps other than the one held; ${r.visits.length} visits${r.reprofiles ? `; profiled again after ${r.reprofiles} phase change(s)` : ''}`,
  ];
  if (r.savings?.note) lines.push(`                ${r.savings.note}`);
  lines.push('', 'cap W  visits  throughput/GPU (95 % CI)      units/J (95 % CI)');
  for (const p of r.profile) {
    const ci = (s: TuneReport['profile'][number]['throughput'], d: number) => (s.mean === null ? '–' : `${s.mean.toFixed(d)}${s.ci ? ` ±${s.ci.half_width.toFixed(d)}` : ''}`);
    lines.push(`${String(p.cap_w).padStart(5)}  ${String(p.visits).padStart(6)}  ${ci(p.throughput, 2).padEnd(28)}  ${ci(p.efficiency, 5)}${p.cap_w === r.cap_held_w ? '  *held' : ''}`);
  }
  lines.push('', `Next: caplab analyze ${r.sweep_id}   (the visits analysed like a sweep)`);
  return lines.join('\n') + '\n';
}
