// The real H200 capture (test/fixtures/h200-capture.csv): 100 ms NVML samples around the end of a training load,
// the 1 s average read once a second, and energy-counter readings taken by a separate process (the ground truth).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { windowEnergy } from '../../src/core/analysis/energy';
import type { PowerSample } from '../../src/core/analysis/series';

export interface CounterMark {
  name: string;
  t: number;
  energy_mj: number;
}

export interface H200Capture {
  marks: CounterMark[];
  samples: PowerSample[];
  rows: Record<string, string>[];
  /** Only the averaged readings, as average-kind samples: what a log of nvidia-smi power.draw holds. */
  avgOnly: PowerSample[];
}

export function loadH200Capture(): H200Capture {
  const lines = readFileSync(fileURLToPath(new URL('../fixtures/h200-capture.csv', import.meta.url)), 'utf8').split('\n');
  const marks = lines
    .filter((l) => l.startsWith('# counter,'))
    .map((l) => {
      const [, name, t, e] = l.slice(2).split(',');
      return { name: name!, t: Number(t), energy_mj: Number(e) };
    });
  const header = lines.find((l) => l.startsWith('t,'))!.split(',');
  const rows = lines.filter((l) => /^\d/.test(l)).map((l) => Object.fromEntries(l.split(',').map((v, i) => [header[i]!, v])));
  const num = (v: string | undefined) => (v === undefined || v === '' ? null : Number(v));
  const samples = rows.map((r) => ({ t: Number(r.t), power_w: num(r.power_w), power_kind: r.power_kind as PowerSample['power_kind'], power_avg_w: num(r.power_avg_w) }));
  const avgOnly = samples.filter((s) => s.power_avg_w !== null).map((s) => ({ t: s.t, power_w: s.power_avg_w, power_kind: 'average' as const }));
  return { marks, samples, rows, avgOnly };
}

/** Percent error of windowEnergy between two counter readings against the counter's delta. */
export function errPct(samples: PowerSample[], a: CounterMark, b: CounterMark, opts: Parameters<typeof windowEnergy>[2]): number {
  const counterJ = (b.energy_mj - a.energy_mj) / 1000;
  const r = windowEnergy(samples, { start: a.t, end: b.t }, opts);
  return ((r.energy_j! - counterJ) / counterJ) * 100;
}

export interface AveragePowerCase {
  from: string;
  to: string;
  seconds: number;
  counter_j: number;
  /** Percent errors against the counter by method. */
  boxcar: number;
  unaligned: number;
  shift: number;
  naive: number;
  instant: number;
}

/** Every pair of counter readings at least `min_s` apart, with each method's error from the averaged readings alone. */
export function averagePowerCases(cap: H200Capture, min_s = 8): AveragePowerCase[] {
  const out: AveragePowerCase[] = [];
  const { marks, avgOnly, samples } = cap;
  for (let i = 0; i < marks.length; i++)
    for (let j = i + 1; j < marks.length; j++) {
      const a = marks[i]!;
      const b = marks[j]!;
      if (b.t - a.t < min_s) continue;
      out.push({
        from: a.name,
        to: b.name,
        seconds: b.t - a.t,
        counter_j: (b.energy_mj - a.energy_mj) / 1000,
        boxcar: errPct(avgOnly, a, b, {}),
        unaligned: errPct(avgOnly, a, b, { average_align_s: 0 }),
        shift: errPct(avgOnly, a, b, { average_method: 'shift', average_lag_s: 0.5 }),
        naive: errPct(avgOnly, a, b, { average_method: 'shift', average_lag_s: 0 }),
        instant: errPct(samples, a, b, { prefer: ['instant'] }),
      });
    }
  return out;
}
