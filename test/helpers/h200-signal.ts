// Issue #25's real H200 capture (test/fixtures/h200-signal/, bench/gpu/h200_signal.py): the seed paper's nvidia-smi
// query at -lms 100 (power.draw, the 1 s average), nvidia-smi power.draw.instant / .average at -lms 100, a
// WattAMeter-style log at 100 ms (NVML power usage and the energy counter), and the energy counter read by the load
// process at every phase edge (the ground truth). Every log stamps UTC; times here are epoch seconds.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { PowerSample } from '../../src/core/analysis/series';

const fixture = (name: string, f: string) => fileURLToPath(new URL(`../fixtures/${name}/${f}`, import.meta.url));

export interface SignalMark {
  name: string;
  t: number;
  energy_mj: number;
}

/** A window between two edge readings of the counter: a load phase, or the idle after one (or before the first). */
export interface SignalPhase {
  name: string;
  kind: 'load' | 'idle';
  /** The phase before it was a load (an idle right after a load). */
  after_load: boolean;
  start: number;
  end: number;
  counter_j: number;
}

export interface H200Signal {
  marks: SignalMark[];
  phases: SignalPhase[];
  /** nvidia-smi power.draw at -lms 100 (the seed query): average-kind readings. */
  seed: PowerSample[];
  /** nvidia-smi power.draw.instant at -lms 100. */
  instant: PowerSample[];
  /** nvidia-smi power.draw.average at -lms 100. */
  average: PowerSample[];
  /** The WattAMeter-style log: the energy counter at 100 ms, with its power column (1 s average). */
  wattCounter: PowerSample[];
  /** The WattAMeter-style log's power column only (gpu-0[mW], NVML power usage). */
  wattPower: PowerSample[];
}

const smiTime = (s: string) => Date.parse(`${s.trim().replace(/\//g, '-').replace(' ', 'T')}Z`) / 1000;
const wattTime = (s: string) => Date.parse(`${s.replace('_', 'T').slice(0, 23)}Z`) / 1000 + Number(`0.000${s.slice(23)}`);

function csv(dir: (f: string) => string, file: string): string[][] {
  return readFileSync(dir(file), 'utf8')
    .split('\n')
    .slice(1)
    .filter((l) => l.trim())
    .map((l) => l.split(',').map((f) => f.trim()));
}

/**
 * `h200-signal` (2026-12-03: edges read at arbitrary instants, each mark up to one ~100 ms update stale) or
 * `h200-signal-edges` (2026-12-04: every edge on an update, the marks exact, and `exact.log`).
 */
export function loadH200Signal(name: 'h200-signal' | 'h200-signal-edges' = 'h200-signal'): H200Signal {
  const dir = (f: string) => fixture(name, f);
  const m = JSON.parse(readFileSync(dir('marks.json'), 'utf8')) as { marks: SignalMark[] };
  const marks = m.marks;
  const at = (name: string) => marks.find((x) => x.name === name)!;
  const window = (name: string, kind: 'load' | 'idle', a: SignalMark, b: SignalMark, after_load: boolean): SignalPhase => ({
    name,
    kind,
    after_load,
    start: a.t,
    end: b.t,
    counter_j: (b.energy_mj - a.energy_mj) / 1000,
  });
  // idle0_start -> 1_X_start, then per load N: N_X_start -> N_X_end, and the idle after it: N_X_end -> idleN_end.
  const loads = marks.filter((x) => /^\d+_.*_start$/.test(x.name)).map((x) => x.name.replace(/_start$/, ''));
  const phases: SignalPhase[] = [window('idle0', 'idle', at('idle0_start'), at(`${loads[0]}_start`), false)];
  loads.forEach((l, i) => {
    phases.push(window(l, 'load', at(`${l}_start`), at(`${l}_end`), false));
    phases.push(window(`idle${i + 1}`, 'idle', at(`${l}_end`), at(`idle${i + 1}_end`), true));
  });
  const seed = csv(dir, 'smi-seed.csv').map((r) => ({ t: smiTime(r[0]!), power_w: Number(r[5]), power_kind: 'average' as const }));
  const inst = csv(dir, 'smi-inst.csv');
  const instant = inst.map((r) => ({ t: smiTime(r[0]!), power_w: Number(r[2]), power_kind: 'instant' as const }));
  const average = inst.map((r) => ({ t: smiTime(r[0]!), power_w: Number(r[3]), power_kind: 'average' as const }));
  const watt = readFileSync(dir('wattameter.log'), 'utf8')
    .split('\n')
    .filter((l) => l.trim() && !l.startsWith('#'))
    .map((l) => l.trim().split(/\s+/));
  const wattCounter = watt.map((r) => ({ t: wattTime(r[0]!), energy_mj: Number(r[3]) }));
  const wattPower = watt.map((r) => ({ t: wattTime(r[0]!), power_w: Number(r[2]) / 1000, power_kind: 'average' as const }));
  return { marks, phases, seed, instant, average, wattCounter, wattPower };
}
