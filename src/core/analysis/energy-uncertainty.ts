// The stated uncertainty of an energy figure: a systematic bound from documented sensor facts and CapLab's own
// method claims, not a statistical confidence interval (a reading that is off stays off when repeated, so no
// spread over repetitions shows it). Used for imported datasets' energy (datasetEnergy).
import { AVERAGE_WINDOW_S, NVML_UPDATE_S } from './average-power';
import { ENERGY_METHOD } from './energy';

/** NVML's stated power accuracy, W (NVIDIA's documentation). */
export const NVML_STATED_W = 5;
/** Studies of 70+ GPUs found NVML readings within 5 % of the reading. */
export const NVML_READING_SHARE = 0.05;
/** CapLab's claim for 1 s average power integrated as boxcar tiles: within 2 % of the counter over phases >= 8 s. */
export const AVERAGE_METHOD_SHARE = 0.02;
export const AVERAGE_MIN_PHASE_S = 8;
/** The older half-second shift of averaged power: +5 to +9 % after load steps (issue #11's H200 measurement). */
export const SHIFT_METHOD_SHARE = 0.09;

export interface EnergyBound {
  /** Half-width of the bound, J: the energy lies within energy_j +- uncertainty_j. null: no stated bound. */
  uncertainty_j: number | null;
  /** What the bound is made of, in words. */
  uncertainty_basis: string;
}

export interface BoundInput {
  energy_j: number | null;
  duration_s: number;
  method?: string | null;
  /** What the readings leave open at the window's edges, J (EnergyResult.edge_uncertainty_j), added to the method term. */
  edge_uncertainty_j?: number;
}

/** What the energy is of: NVML facts hold for GPUs only. */
export type PowerOf = 'gpu' | 'cpu' | 'node' | 'facility';

const j = (v: number) => `${v.toFixed(1)} J`;

/** The method's own error beyond the sensor's, J, with its words; null for a method with no stated claim. */
function methodTerm(e: { energy_j: number; duration_s: number; method: string }): { j: number; words: string } | null {
  const m = e.method;
  if (m === ENERGY_METHOD.counter || m === ENERGY_METHOD.counterDerived || m === ENERGY_METHOD.instant) return { j: 0, words: `${m}: no method term` };
  if (m === ENERGY_METHOD.boxcar) {
    if (e.duration_s >= AVERAGE_MIN_PHASE_S) return { j: AVERAGE_METHOD_SHARE * e.energy_j, words: `${m}: ${AVERAGE_METHOD_SHARE * 100} % (phase >= ${AVERAGE_MIN_PHASE_S} s)` };
    // Under 8 s CapLab claims nothing: the averaging can misplace up to one second of energy at each window edge.
    const edges = (2 * AVERAGE_WINDOW_S * e.energy_j) / e.duration_s;
    const v = Math.max(AVERAGE_METHOD_SHARE * e.energy_j, edges);
    return { j: v, words: `${m}: phase under ${AVERAGE_MIN_PHASE_S} s, the two edge seconds at the mean power (${j(v)})` };
  }
  if (m.startsWith(ENERGY_METHOD.shifted)) return { j: SHIFT_METHOD_SHARE * e.energy_j, words: `${m}: ${SHIFT_METHOD_SHARE * 100} %` };
  return null;
}

/**
 * One device's bound: the NVML sensor's max(5 W, 5 % of the mean reading) over the window, plus the method's term
 * (added linearly: both are systematic and may point the same way).
 */
export function deviceEnergyBound(e: BoundInput, powerOf: PowerOf): EnergyBound {
  if (e.energy_j === null) return { uncertainty_j: null, uncertainty_basis: 'no energy' };
  if (powerOf !== 'gpu') return { uncertainty_j: null, uncertainty_basis: `no stated accuracy for ${powerOf} power sensors` };
  const term = methodTerm({ energy_j: e.energy_j, duration_s: e.duration_s, method: e.method ?? '' });
  if (!term) return { uncertainty_j: null, uncertainty_basis: `no stated accuracy for the method "${e.method ?? 'unknown'}"` };
  const edges = e.edge_uncertainty_j ?? 0;
  const method = edges > 0 ? { j: term.j + edges, words: `${term.words} + the edges' steps over half NVML's ${NVML_UPDATE_S * 1000} ms update (${j(edges)})` } : term;
  const byWatts = NVML_STATED_W * e.duration_s;
  const byShare = NVML_READING_SHARE * e.energy_j;
  const sensor = Math.max(byWatts, byShare);
  const sensorWords = byWatts >= byShare ? `NVML stated ±${NVML_STATED_W} W over ${e.duration_s.toFixed(1)} s` : `NVML ±${NVML_READING_SHARE * 100} % of reading`;
  return { uncertainty_j: sensor + method.j, uncertainty_basis: `systematic bound: ${sensorWords} (${j(sensor)}) + ${method.words}` };
}

/** The total's bound: the devices' bounds added (worst case, every sensor off the same way); null if any has none. */
export function totalEnergyBound(devices: readonly EnergyBound[]): EnergyBound {
  if (devices.length === 0) return { uncertainty_j: null, uncertainty_basis: 'no devices' };
  const missing = devices.filter((d) => d.uncertainty_j === null);
  if (missing.length) return { uncertainty_j: null, uncertainty_basis: `no bound for ${missing.length} of ${devices.length} device(s): ${missing[0]!.uncertainty_basis}` };
  const sum = devices.reduce((s, d) => s + d.uncertainty_j!, 0);
  return { uncertainty_j: sum, uncertainty_basis: `systematic sensor bound, not a statistical CI: the ${devices.length} device bound(s) added (worst case)` };
}
