// The adaptive window's power rule on a recorded real H200 (test/fixtures/h200-signal-edges, issue #25's capture,
// 2026-12-04): each training phase replayed through AdaptiveWindow with the power channel CapLab's NVML sampler
// gives (power.draw.instant every 100 ms) and, beside it, the energy counter read every 100 ms in readings of its
// own (the WattAMeter log's mJ column) or at every update (exact.log). Steps are the phase's mean step (its step
// count over its length: the capture logged no step times), so the throughput CI here says nothing. No GPU needed.
//   npx tsx bench/gpu/window-capture.ts [WARMUP_S]    (JSON on stdout; default warm-up 5 s)
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { AdaptiveWindow, type WindowVerdict } from '../../src/core/sweep/adaptive-window';
import { loadH200Signal } from '../../test/helpers/h200-signal';

const FIXTURE = 'test/fixtures/h200-signal-edges';
const file = (f: string) => fileURLToPath(new URL(`../../${FIXTURE}/${f}`, import.meta.url));
export const CAPTURE_RULE = { ci_target: 0.01, min_s: 10 };
export const CHANNELS = ['power readings only', 'counter read every 100 ms', 'counter, every update'] as const;
export type Channel = (typeof CHANNELS)[number];

export interface PhaseReplay {
  phase: string;
  seconds: number;
  step_s: number;
  channels: Record<Channel, Pick<WindowVerdict, 'stop' | 'elapsed_s' | 'power_ci' | 'steady' | 'reason'>>;
}

/** Every load phase of the capture, its window starting `warmupS` after the phase start. */
export function replayCapture(warmupS: number): PhaseReplay[] {
  if (!(warmupS >= 0)) throw new Error(`window-capture: the warm-up must be a number of seconds >= 0, got ${warmupS}`);
  const cap = loadH200Signal('h200-signal-edges');
  const steps = new Map((JSON.parse(readFileSync(file('marks.json'), 'utf8')) as { phases: { name: string; steps: number }[] }).phases.map((p) => [p.name, p.steps]));
  // An update lies between the last read with the old value and the first with the new: its midpoint.
  const updates = readFileSync(file('exact.log'), 'utf8')
    .split('\n')
    .filter((l) => l.trim() && !l.startsWith('#'))
    .map((l) => l.trim().split(/\s+/).map(Number))
    .map(([a, b, mj]) => ({ t: (a! + b!) / 2, energy_mj: mj! }));
  const counters: Record<Channel, { t: number; energy_mj?: number | null }[]> = { 'power readings only': [], 'counter read every 100 ms': cap.wattCounter, 'counter, every update': updates };
  return cap.phases.flatMap((p) => {
    const n = steps.get(p.name);
    if (p.kind !== 'load' || !n) return [];
    const dt = (p.end - p.start) / n;
    const start = p.start + warmupS;
    const replay = (channel: Channel) => {
      const w = new AdaptiveWindow(CAPTURE_RULE, start);
      const feed = [...cap.instant.map((r) => ({ t: r.t, w: r.power_w as number | null, mj: null as number | null })), ...counters[channel].map((c) => ({ t: c.t, w: null, mj: c.energy_mj ?? null }))]
        .filter((r) => r.t >= start && r.t <= p.end)
        .sort((a, b) => a.t - b.t);
      let k = 0;
      let v = w.judge(start);
      for (let s = 1; p.start + s * dt <= p.end + 1e-9 && !v.stop; s++) {
        const t = p.start + s * dt;
        for (; k < feed.length && feed[k]!.t <= t; k++) w.sample('h200', feed[k]!.t, feed[k]!.w, feed[k]!.mj);
        w.step(t, 1, dt);
        if (t > start) v = w.judge(t);
      }
      return { stop: v.stop, elapsed_s: v.elapsed_s, power_ci: v.power_ci, steady: v.steady, reason: v.reason };
    };
    return [{ phase: p.name, seconds: p.end - p.start, step_s: dt, channels: Object.fromEntries(CHANNELS.map((c) => [c, replay(c)])) as PhaseReplay['channels'] }];
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const warmup = Number(process.argv[2] ?? 5);
  console.log(JSON.stringify({ capture: FIXTURE, rule: CAPTURE_RULE, warmup_s: warmup, phases: replayCapture(warmup) }, null, 1));
}
