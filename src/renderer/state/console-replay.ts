import type { XY } from '../../core/decimate';
import type { RunRecord, RunTraces } from '../../shared/records';
import { ApiCallError } from '../api/transport';
import type { LabApi } from '../../shared/api';
import { toastError } from './toasts';
import { liveDeviceId } from '../lib/device-label';
import { live, LIVE_METRICS, type LiveMetric, type SweepHistory } from './live';
import type { PhaseMark } from '../lib/live-figure';

/** Points per run and metric fetched for a replay: enough for the console's window, cheap for long sweeps. */
const REPLAY_POINTS = 800;

/** Phase marks of the runs that started, from their recorded times (warm-up, measurement, cool-down). */
function phasesOfRuns(runs: readonly RunRecord[]): PhaseMark[] {
  const marks: PhaseMark[] = [];
  for (const r of [...runs].sort((a, b) => a.order - b.order)) {
    if (r.started_at == null) continue;
    marks.push({ t: r.started_at, phase: 'warmup', run_id: r.id, cap_w: r.cap_w });
    if (r.measure_start != null) marks.push({ t: r.measure_start, phase: 'measure', run_id: r.id, cap_w: r.cap_w });
    const end = r.measure_end ?? r.ended_at;
    if (end != null && r.status !== 'running') marks.push({ t: end, phase: 'cooldown', run_id: r.id, cap_w: r.cap_w });
  }
  return marks.sort((a, b) => a.t - b.t);
}

/** Joins runs' traces (in time order) into one history per device and metric. */
function historyOf(sweepId: number, runs: readonly RunRecord[], traces: readonly RunTraces[]): SweepHistory {
  const devices = new Map<string, Record<LiveMetric, XY>>();
  const throughput: XY = { t: [], v: [] };
  const append = (into: XY, s: XY) => {
    for (let i = 0; i < s.t.length; i++) {
      if (into.t.length && s.t[i]! <= into.t.at(-1)!) continue;
      into.t.push(s.t[i]!);
      into.v.push(s.v[i] ?? null);
    }
  };
  const ordered = [...traces].sort((a, b) => (a.throughput.t[0] ?? a.devices[0]?.power_w.t[0] ?? 0) - (b.throughput.t[0] ?? b.devices[0]?.power_w.t[0] ?? 0));
  for (const tr of ordered) {
    for (const d of tr.devices) {
      const id = liveDeviceId(d.device_id);
      let rec = devices.get(id);
      if (!rec) {
        rec = { power_w: { t: [], v: [] }, sm_clock_mhz: { t: [], v: [] }, temp_c: { t: [], v: [] }, limit_w: { t: [], v: [] } };
        devices.set(id, rec);
      }
      for (const m of LIVE_METRICS) append(rec[m], d[m]);
    }
    append(throughput, tr.throughput);
  }
  return { sweepId, devices: [...devices].map(([id, rec]) => ({ id, ...rec })), throughput, phases: phasesOfRuns(runs) };
}

let replaying: Promise<void> | null = null;
let replayedFor: number | null = null;

/**
 * Fills the live store with a sweep's stored history (every run that started), so the console of a finished
 * sweep, or of a running one after a reload, shows its traces and phases; live events continue from there.
 * Once per sweep; a second call while one is under way waits for it.
 */
export function replaySweep(sweepId: number, runs: readonly RunRecord[], getRunTraces: LabApi['getRunTraces']): Promise<void> {
  if (replayedFor === sweepId && replaying) return replaying;
  replayedFor = sweepId;
  replaying = (async () => {
    const started = runs.filter((r) => r.started_at != null);
    const traces: RunTraces[] = [];
    for (const r of started) {
      try {
        traces.push(await getRunTraces({ run_id: r.id, max_points: REPLAY_POINTS }));
      } catch (e) {
        // A run deleted meanwhile: the rest still replays. Anything else (the host gone) is said, not swallowed,
        // and what was fetched so far is shown.
        if (!(e instanceof ApiCallError && e.code === 'not_found')) {
          toastError(e);
          break;
        }
      }
      if (replayedFor !== sweepId) return;
    }
    live.mergeHistory(historyOf(sweepId, runs, traces));
  })();
  return replaying;
}
