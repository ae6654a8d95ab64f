import type { FacilityGridResult, FacilityLevel, FacilityResult, GridEventResult } from './facility';

/**
 * One set of units and formats for the facility tables of the CLI, the Facility page and the facility report
 * (the JSON keeps SI fields): power in MW, energy in GWh, utilisation and shares in %, cost in the config's currency.
 */

const MW = 1e6;
const fix = (v: number | null, d: number) => (v === null || !Number.isFinite(v) ? '–' : v.toFixed(d));
/** Three significant figures, no exponent (energy and carbon range over six orders of magnitude between sites). */
export const sig = (v: number) => (!Number.isFinite(v) ? '–' : v === 0 ? '0' : Math.abs(v) >= 100 ? v.toFixed(0) : v.toFixed(Math.min(6, 2 - Math.floor(Math.log10(Math.abs(v))))));
export const pctOf = (u: number | null, d = 1) => (u === null || !Number.isFinite(u) ? '–' : `${(u * 100).toFixed(d)} %`);
export const mwOf = (w: number | null, d = 3) => fix(w === null ? null : w / MW, d);
export const targetOf = (l: FacilityLevel) => `${Math.round(l.target_utilization * 100)} %`;
/** A replica sd, left out when it rounds to zero at the figure's precision (no "± 0.000"). */
const sdOf = (sd: number, d: number, scale: number) => (sd / scale >= 0.5 * 10 ** -d ? ` ± ${(sd / scale).toFixed(d)}` : '');
export const costOf = (v: number, currency: string) => (Math.abs(v) >= 1e6 ? `${(v / 1e6).toFixed(2)} M ${currency}` : Math.abs(v) >= 1e3 ? `${(v / 1e3).toFixed(1)} k ${currency}` : `${v.toFixed(0)} ${currency}`);

export function levelHeaders(r: Pick<FacilityResult, 'mode'>): string[] {
  return ['utilisation', 'mean MW', 'peak MW', 'p99 MW', 'total mean MW', 'ramp 1 min MW', 'ramp 1 h MW', 'energy GWh', 'cost', 't CO2', 'wait h', r.mode === 'inference' ? 'incomplete' : 'jobs started'];
}

export function levelCells(r: Pick<FacilityResult, 'mode' | 'currency'>, l: FacilityLevel): string[] {
  const many = l.replicas > 1;
  return [
    `${pctOf(l.utilization)}${many ? sdOf(l.sd.utilization * 100, 1, 1) : ''}`,
    `${mwOf(l.mean_w)}${many ? sdOf(l.sd.mean_w, 3, MW) : ''}`,
    `${mwOf(l.peak_w)}${many ? sdOf(l.sd.peak_w, 3, MW) : ''}`,
    mwOf(l.p99_w),
    mwOf(l.mean_total_w),
    mwOf(l.ramp_1min_w),
    mwOf(l.ramp_1h_w),
    sig(l.energy_total_mwh / 1000),
    costOf(l.cost, r.currency),
    sig(l.carbon_t),
    fix(l.queue_wait_mean_h, 2),
    r.mode === 'inference' ? pctOf(l.incomplete_fraction, 2) : fix(l.jobs_started, 0),
  ];
}

export const GRID_HEADERS = ['grid mean MW', 'grid peak MW', 'limit MW', 'h at limit', 'h over limit', 'work lost', 'deferred node-h', 'ramp 1 min MW', 'ramp 15 min MW', 'ramp violations (before → after)', 'battery cycles', 'generator MWh'];

const sum = (o: Record<string, number>) => Object.values(o).reduce((a, b) => a + b, 0);

export function gridCells(g: FacilityGridResult): string[] {
  return [
    mwOf(g.grid_mean_w),
    mwOf(g.grid_peak_w),
    mwOf(g.limit_w),
    fix(g.hours_at_limit, 1),
    fix(g.hours_over_limit, 1),
    pctOf(g.work_lost_share, 3),
    fix(sum(g.deferred_node_h), 0),
    mwOf(g.ramp_1min_w),
    mwOf(g.ramp_15min_w),
    rampCell(g),
    g.battery ? fix(g.battery.cycles, 1) : '–',
    fix(g.generator_mwh, 1),
  ];
}

/** Violations before and after storage, and with smoothing what the same response left unsmoothed and by what. */
function rampCell(g: FacilityGridResult): string {
  const sm = g.ramp_smoothing;
  const cell = `${g.ramp_violations_before} → ${g.ramp_violations}`;
  if (!sm) return cell;
  const lost = sum(sm.work_lost_node_h);
  return `${cell} (unsmoothed ${sm.violations_unsmoothed}; smoothed by ${sm.by.join(' + ')}${lost > 0 ? `, ${fix(lost, 1)} node-h lost` : ''})`;
}

/** A count in thousands past 10,000, in millions past 1,000,000 (requests over an event run to millions). */
function countOf(n: number): string {
  if (n >= 1e6) return `${(n / 1e6).toFixed(2)} M`;
  if (n >= 1e4) return `${(n / 1e3).toFixed(1)} k`;
  return n.toFixed(0);
}

export const EVENT_HEADERS = ['event', 'requested MW', 'delivered MW (mean / min)', 'met', 'time to reach min', 'work lost node-h', 'deferred node-h', 'jobs delayed', 'added wait h', 'energy MWh', 'cost', 'rebound peak MW', 'rebound lasts h'];

export function eventCells(e: GridEventResult, currency: string): string[] {
  return [
    e.name,
    mwOf(e.requested_w),
    `${mwOf(e.delivered_mean_w)} / ${mwOf(e.delivered_min_w)}`,
    pctOf(e.met_share, 0),
    fix(e.time_to_reach_min, 0),
    `${fix(sum(e.work_lost_node_h), 1)} (${Object.entries(e.work_lost_node_h)
      .map(([k, v]) => `${k} ${v.toFixed(1)}`)
      .join(', ')})${e.incomplete_requests ? `; ${countOf(sum(e.incomplete_requests))} requests incomplete` : ''}`,
    fix(sum(e.deferred_node_h), 1),
    fix(e.jobs_delayed, 1),
    fix(e.added_wait_mean_h, 2),
    fix(e.energy_mwh, 2),
    costOf(e.cost, currency),
    mwOf(e.rebound_peak_w),
    fix(e.rebound_end_h - e.end_h, 2),
  ];
}
