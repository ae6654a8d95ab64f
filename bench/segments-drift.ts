// Phase detection on quiet plateaus that only wander (issue #25 finding 3's open failure class): random step sequences
// (1-5 plateaus of 12-60 s, neighbouring levels at least 80 W apart), no white noise, a slow wander of 1.7-2 W rms,
// read as instant power or through a 1 s average every 0.1-1 s; counts the cases whose phase count is wrong and those
// with an edge more than one sample interval off its step. Deterministic (a fixed generator). Accuracy, not speed.
// `npx tsx bench/segments-drift.ts [cases]` (default 10,000).
import { AVERAGE_STEP_LAG_S, DENSE_AVERAGE_ALIGN_S } from '../src/core/analysis/average-power';
import { NVML_STATED_W } from '../src/core/analysis/energy-uncertainty';
import { binMeans, detectPhases } from '../src/core/segments';
import { PowerSim } from '../test/helpers/power-sim';
let s = 12345;
const rnd = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) + 0.5) / 4294967296;
let fail = 0;
let edge = 0;
const N = Number(process.argv[2] ?? 10000);
for (let k = 0; k < N; k++) {
  const n = 1 + Math.floor(rnd() * 5);
  const plateaus: { duration: number; level_w: number }[] = [];
  for (let i = 0; i < n; i++) { let l = 60 + rnd() * 640; const prev = plateaus[i - 1]?.level_w; if (prev !== undefined && Math.abs(l - prev) < 80) l = prev > 380 ? prev - 80 - rnd() * 200 : prev + 80 + rnd() * 200; plateaus.push({ duration: 12 + rnd() * 48, level_w: l }); }
  const sensor = rnd() < 0.5 ? 'instant' : 'average';
  const seed = 1 + Math.floor(rnd() * 2 ** 30);
  const dt = 0.1 + rnd() * 0.9;
  const sim = new PowerSim({ plateaus, noise_w: 0, wander_w: 1.7 + 0.3 * rnd(), seed });
  const t = sim.times(dt, 0.03, seed);
  const v = t.map((x) => (sensor === 'instant' ? sim.instant(x) : sim.average(x, 1, DENSE_AVERAGE_ALIGN_S)));
  const b = binMeans(t, v, 4000);
  const ph = detectPhases(b.t, b.v, b.width, { lag_s: sensor === 'average' ? AVERAGE_STEP_LAG_S : 0, min_step: NVML_STATED_W });
  if (ph.length !== plateaus.length) fail++;
  else if (ph.slice(1).some((p, i) => Math.abs(p.start - sim.steps[i]!) > dt)) edge++;
}
console.log(`cases ${N}: wrong phase count ${fail}, an edge off by more than one interval ${edge}`);
