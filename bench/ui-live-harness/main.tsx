// Bench harness: the real LiveTraces component and live store, fed with synthetic sample events shaped like the
// engine's (`samples`, `throughput`, `sweep.progress` as JSON text, parsed as the WebSocket client does).
import { createRoot } from 'react-dom/client';
import '../../src/renderer/styles.css';
import { LiveTraces, type FrameStats } from '../../src/renderer/components/LiveTraces';
import { live } from '../../src/renderer/state/live';
import { useSettings } from '../../src/renderer/state/settings';
import type { EventPayload } from '../../src/shared/api';

interface FeedOptions {
  gpus: number;
  hz: number;
  simSeconds: number;
  speedup: number;
  /** Wall seconds between sample events (the engine batches samples per event). */
  batchWallS: number;
}

const frames: FrameStats[] = [];
const ingestMs: number[] = [];
let sent = 0;
let sampleEvents = 0;
let plotlyDraws = 0;
let ownDrawsAtStart = 0;

function samplesMessage(sweep: number, t0: number, from: number, to: number, o: FeedOptions): string {
  const samples: EventPayload<'samples'>['samples'] = [];
  const dt = 1 / o.hz;
  for (let k = from; k < to; k++) {
    const t = t0 + k * dt;
    const cap = 200 + 100 * (Math.floor(t / 300) % 6);
    for (let g = 0; g < o.gpus; g++) {
      const load = (t % 300) > 30 ? 1 : 0.2;
      samples.push({
        device_id: `sim:${g}`,
        t,
        power_w: Math.min(cap, 90 + 600 * load) - 5 + Math.random() * 10,
        power_kind: 'instant',
        power_avg_w: null,
        energy_mj: t * 400_000,
        sm_clock_mhz: 345 + 1600 * load * Math.min(1, cap / 500),
        mem_clock_mhz: 2619,
        temp_c: 35 + 30 * load,
        util_gpu: 100 * load,
        util_mem: 40,
        mem_used_mb: 40_000,
        limit_w: cap,
        throttle_reasons: 0,
      });
    }
  }
  return JSON.stringify({ event: 'samples', payload: { sweep_id: sweep, run_id: 1, samples } });
}

function deliver(text: string): void {
  const t = performance.now();
  const msg = JSON.parse(text) as { event: string; payload: unknown };
  if (msg.event === 'samples') {
    live.addSamples(msg.payload as EventPayload<'samples'>);
    sampleEvents++;
  }
  else if (msg.event === 'throughput') live.addThroughput(msg.payload as EventPayload<'throughput'>);
  else if (msg.event === 'sweep.progress') live.addPhase(msg.payload as EventPayload<'sweep.progress'>);
  ingestMs.push(performance.now() - t);
  sent++;
}

async function feed(o: FeedOptions): Promise<{ sentSamples: number; receivedSamples: number; events: number; sampleEvents: number; wallS: number }> {
  // Every Plotly drawing of the figure (frames, and redraws a resize sets off) ends in plotly_afterplot (a Plotly
  // baseline; the canvas path has no such event and counts in data-draws).
  const gd = document.querySelector('[data-testid=live-traces]') as (HTMLElement & { on?(ev: string, cb: () => void): void }) | null;
  gd?.on?.('plotly_afterplot', () => plotlyDraws++);
  // Frames and draws are counted from here: those drawn while the page loaded and took its settings are no part of it.
  frames.length = 0;
  ownDrawsAtStart = Number(gd?.dataset.draws ?? 0);
  live.reset(1);
  const t0 = 1_800_000_000;
  const total = Math.round(o.simSeconds * o.hz);
  const perBatch = Math.max(1, Math.round(o.batchWallS * o.speedup * o.hz));
  const started = performance.now();
  let k = 0;
  let phase = -1;
  while (k < total) {
    const next = Math.min(total, k + perBatch);
    const simT = t0 + next / o.hz;
    const p = Math.floor((simT - t0) / 100) % 3;
    if (p !== phase) {
      phase = p;
      const name = (['warmup', 'measure', 'cooldown'] as const)[p]!;
      deliver(JSON.stringify({ event: 'sweep.progress', payload: { sweep_id: 1, run_id: 1, runs_done: 0, run_count: 1, workload: 'bench', cap_w: 300, repetition: 1, phase: name, fraction: (simT - t0) / o.simSeconds } }));
    }
    deliver(samplesMessage(1, t0, k, next, o));
    deliver(JSON.stringify({ event: 'throughput', payload: { sweep_id: 1, run_id: 1, t: simT, rate: 250 + Math.random() * 10 } }));
    k = next;
    // Real-time pacing at the speed-up: the next batch is due batchWallS after this one.
    const due = started + ((k / o.hz) / o.speedup) * 1000;
    await new Promise((r) => setTimeout(r, Math.max(0, due - performance.now())));
  }
  // Let the last frame draw.
  const deadline = performance.now() + 10_000;
  while (performance.now() < deadline && Number(document.querySelector<HTMLElement>('[data-testid=live-traces]')?.dataset.lastT ?? 0) < t0 + (total - 1) / o.hz - 1e-6) {
    await new Promise((r) => setTimeout(r, 50));
  }
  return { sentSamples: total * o.gpus, receivedSamples: live.received, events: sent, sampleEvents, wallS: (performance.now() - started) / 1000 };
}

declare global {
  interface Window {
    __bench: unknown;
  }
}

window.__bench = {
  configure: (s: { liveWindowMin?: number; refreshMs?: number; maxPoints?: number }) => useSettings.getState().set(s),
  feed,
  frames: () => frames.splice(0),
  ingest: () => ingestMs.splice(0),
  // The canvas path counts its own drawings; Plotly's are counted by its afterplot event.
  draws: () => {
    const own = document.querySelector<HTMLElement>('[data-testid=live-traces]')?.dataset.draws;
    return own === undefined ? plotlyDraws : Number(own) - ownDrawsAtStart;
  },
  ready: true,
};

createRoot(document.getElementById('root')!).render(<LiveTraces source={live} onFrame={(f) => frames.push(f)} />);
