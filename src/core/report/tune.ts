// The Tuning section of a tuning session's report: the cap held and why, the energy used and saved, the slowdown and
// the profiling cost, from the stored status's figures (tuneOutcomeRows, as tune-csv writes them); a session stored
// before the status kept them shows its end report's text as `caplab tune` printed it.
import { tuneOutcomeRows, type TuneOutcomeRow } from '../../shared/tune-outcome';
import type { TuneEstimate } from '../../shared/tune';
import { escapeHtml as h } from './html-escape';
import { num, pct } from './format';
import type { ReportSource } from './model';
import { table } from './sections';

/** Whether the source is a tuning session (a status or an end report stored with its sweep). */
export const isTuneSession = (s: ReportSource): boolean => Boolean(s.tune_status || s.sweep?.tune_report);

function valueText(v: number | string, unit: string): string {
  if (typeof v === 'string') return h(v);
  if (unit === 'fraction') return pct(v, 2);
  return unit === 'count' ? String(v) : `${num(v)}\u00a0${unit}`;
}

const figureText = (r: TuneOutcomeRow, v: number | string | null) => (v === null ? '–' : valueText(v, r.unit));

function leadOf(src: ReportSource): string {
  const s = src.tune_status;
  if (!s) return '';
  if (s.held_w === null) return `<p class="lead tune-held">No cap held${s.note ? `: ${h(s.note)}` : ''}.</p>`;
  // The headline: the cap, why in a word (the full note is in the table), and what it saved at what cost.
  const o = s.outcome;
  const why = o?.hold_reason ?? (o ? null : s.note);
  const est = (e: TuneEstimate, f: (x: number) => string) => `${f(e.value)} (95 % interval ${f(e.ci[0])} to ${f(e.ci[1])})`;
  const saved = o?.saved_j ? `: it saved ${est(o.saved_j, (x) => `${num(x)}\u00a0J`)}${o.saved_fraction ? `, ${pct(o.saved_fraction.value, 1)} of the default's energy` : ''}` : '';
  const slower = o?.slowdown ? `, at a slowdown of ${est(o.slowdown, (x) => pct(x, 1))}` : '';
  return `<p class="lead tune-held">Held <b>${num(s.held_w)} W</b>${why ? ` (${h(why)})` : ''} against the default limit of ${num(s.default_limit_w)} W${saved}${slower}.</p>`;
}

export function tuneSection(src: ReportSource): string {
  const s = src.tune_status;
  const hold = s?.outcome?.hold_note;
  // The tuner's note of an ended session mostly restates the hold note (the row above it): shown only when it adds.
  const rows = (s ? tuneOutcomeRows(s) : []).filter((r) => !(r.field === 'note' && hold && typeof r.value === 'string' && r.value.includes(hold)));
  const figures = rows.length
    ? table(['', 'value', '95 % interval'], rows.map((r) => [h(r.label), figureText(r, r.value), r.ci ? `${figureText(r, r.ci[0])} to ${figureText(r, r.ci[1])}` : null]), 'kv tune')
    : '';
  // Only the text carries the energy and saving figures of a session stored before its status kept them.
  const text = !s?.outcome && src.sweep?.tune_report ? `<pre class="plan tune-report">${h(src.sweep.tune_report)}</pre>` : '';
  const visits = s?.visits ?? src.runs.length;
  return `${leadOf(src)}${figures}${text}<p class="small tune-visits">The session’s ${visits} profiling ${visits === 1 ? 'visit is the run' : 'visits are the runs'} below: the sections that follow analyse them as a sweep’s runs.</p>`;
}
