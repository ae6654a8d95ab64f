// A tuning session's outcome as one list of figures, read from its stored status: the report's Tuning section and
// the tune-csv export both print this list, so they say the same thing in the same order.
import type { TuneEstimate, TuneStatus } from './tune';

export interface TuneOutcomeRow {
  /** The CSV's field name. */
  field: string;
  /** The report's words for it. */
  label: string;
  value: number | string | null;
  /** 95 % interval, where the figure is an estimate. */
  ci: [number, number] | null;
  /** W, J, s, fraction, count; empty for text. */
  unit: string;
}

const row = (field: string, label: string, value: number | string | null, unit = ''): TuneOutcomeRow => ({ field, label, value, ci: null, unit });
const est = (field: string, label: string, e: TuneEstimate | null, unit: string): TuneOutcomeRow => ({ field, label, value: e?.value ?? null, ci: e?.ci ?? null, unit });

/** The figures of the stored status, as stored (no rounding); the end report's only where the status keeps them. */
export function tuneOutcomeRows(s: TuneStatus): TuneOutcomeRow[] {
  const o = s.outcome;
  return [
    row('stage', 'stage', s.stage),
    row('cap_held_w', 'cap held', s.held_w, 'W'),
    ...(o ? [row('hold_reason', 'held because', o.hold_reason), row('hold_note', 'hold note', o.hold_note)] : []),
    row('default_limit_w', 'default limit', s.default_limit_w, 'W'),
    ...(o
      ? [
          row('energy_used_j', 'energy the job used (GPUs, measured)', o.energy_j, 'J'),
          est('energy_saved_j', 'energy saved vs the default limit', o.saved_j, 'J'),
          est('energy_saved_fraction', 'energy saved, share of the default’s', o.saved_fraction, 'fraction'),
          est('slowdown', 'slowdown vs the default limit', o.slowdown, 'fraction'),
          row('savings_note', 'saving note', o.savings_note),
        ]
      : []),
    row('profiling_s', 'profiling time', s.profiling_s, 's'),
    row('profiling_share', 'profiling share of the job', s.profiling_share, 'fraction'),
    row('profiling_budget_s', 'profiling budget', s.budget_s, 's'),
    ...(o ? [row('profiling_off_cap_s', 'profiling at caps other than the one held', o.profiling_off_cap_s, 's')] : []),
    row('visits', 'visits', s.visits, 'count'),
    row('job_s', 'job time', s.job_s, 's'),
    row('expected_s', 'expected job time', s.expected_s, 's'),
    ...(o ? [row('reprofiles', 're-profiles', o.reprofiles, 'count'), ...o.phase_changes.map((p) => row('phase_change', 'phase change', p.what))] : []),
    row('note', 'tuner’s note', s.note),
  ];
}
