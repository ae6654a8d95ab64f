// overlayTraces over the browser host (issue #29 item 3): runs of two recorded simulated sweeps and a segment of an
// imported nvidia-smi log in one call, each at t = 0 on its window start, its samples the stored ones (the same as
// getRunTraces gives, moved), the phases its record says, and a bad request refused at its field.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../src/main/lab/engine';
import { startServer, type RunningServer } from '../../src/main/host/server';
import { tempDir } from '../helpers/tmp';
import { labEnv, recordSimSweeps } from '../helpers/sim-sweep';
import type { MethodOutput } from '../../src/shared/api';
import type { RunRecord } from '../../src/shared/records';

const tmp = tempDir('caplab-overlay-');
const env = labEnv(tmp.dir);
let engine: Engine;
let server: RunningServer;
let runs: RunRecord[] = [];
let segmentId = 0;

async function post<T>(method: string, body: unknown): Promise<{ status: number; json: T }> {
  const res = await fetch(`http://127.0.0.1:${server.port}/api/${method}`, { method: 'POST', headers: { Authorization: `Bearer ${server.token}`, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, json: (await res.json()) as T };
}

beforeAll(async () => {
  // Two sweeps with a 2 s cool-down after each run, so every phase is there to shade.
  const ids = await recordSimSweeps(tmp.dir, ['h100-sxm', 'h200'], { repetitions: 1, caps: [300, 500], cooldown_s: 2 });
  engine = await Engine.open({ dbPath: env.CAPLAB_DB, env: { ...process.env, ...env } });
  const a = await engine.getSweep({ sweep_id: ids[0]! });
  const b = await engine.getSweep({ sweep_id: ids[1]! });
  runs = [a.runs[0]!, a.runs[1]!, b.runs[1]!];
  const imported = await engine.importPaths(['test/fixtures/import/nvidia-smi-seed.csv'], { format: 'auto', zone: 'UTC', parse_thread: 'inline' });
  const ds = imported.dataset!;
  const saved = await engine.saveSegment({ dataset_id: ds.id, start: ds.t_start!, end: ds.t_end!, label: 'whole log', workload: 'llm', cap_w: 700 });
  segmentId = saved.segments.at(-1)!.id;
  server = await startServer({ engine, port: 0, staticDir: null });
}, 180_000);
afterAll(async () => {
  await server?.close();
  await engine?.close();
  tmp.cleanup();
});

type Overlay = MethodOutput<'overlayTraces'>;

describe('overlayTraces over the host', () => {
  it('aligns three runs of two sweeps and a dataset segment at their window starts', async () => {
    const r = await post<Overlay>('overlayTraces', { sources: [...runs.map((x) => ({ kind: 'run', run_id: x.id })), { kind: 'segment', segment_id: segmentId }], max_points: 20_000 });
    expect(r.status).toBe(200);
    const [o1, o2, o3, seg] = r.json.sources;
    for (const [o, run] of [[o1!, runs[0]!], [o2!, runs[1]!], [o3!, runs[2]!]] as const) {
      expect(o.error).toBeNull();
      expect(o.window_start).toBe(run.measure_start);
      expect(o.label).toBe(`#${run.sweep_id} report test on ${run.sweep_id === runs[0]!.sweep_id ? 'h100-sxm' : 'h200'} · vit_l_16 · ${run.cap_w} W · r1`);
      expect(o.phases.map((p) => p.phase)).toEqual(['warmup', 'measure', 'cooldown']);
      const [warm, measure, cool] = o.phases;
      expect(warm!.from).toBeCloseTo(run.started_at! - run.measure_start!, 6);
      expect(measure).toMatchObject({ from: 0 });
      expect(measure!.to).toBeCloseTo(run.measure_end! - run.measure_start!, 6);
      expect(cool!.to).toBeGreaterThan(cool!.from);
      // The stored samples of the run (all of them at this max_points), moved by the window start.
      const stored = await engine.getRunTraces({ run_id: run.id, max_points: 20_000 });
      const p = o.devices[0]!.power_w;
      const within = p.t.map((t, i) => [t + run.measure_start!, p.v[i]] as const).filter(([t]) => t <= run.ended_at!);
      expect(within.map(([t]) => t)).toEqual(stored.devices[0]!.power_w.t);
      expect(within.map(([, v]) => v)).toEqual(stored.devices[0]!.power_w.v);
      expect(Math.min(...p.t)).toBeLessThan(0);
      expect(Math.max(...p.t)).toBeGreaterThan(measure!.to);
      expect(o.throughput.t.length).toBeGreaterThan(0);
      expect(o.missing).toEqual([]);
    }
    // The segment: its own window, its two GPUs, and no throughput records (said, not drawn).
    expect(seg).toMatchObject({ source: { kind: 'segment', id: segmentId }, error: null, phases: [{ phase: 'measure', from: 0 }] });
    expect(seg!.devices.map((d) => d.name)).toEqual(['NVIDIA H100 80GB HBM3', 'NVIDIA H100 80GB HBM3']);
    expect(seg!.devices[0]!.power_w.v[0]).toBe(612.45);
    expect(seg!.label).toMatch(new RegExp(`^dataset #\\d+ .* · segment ${segmentId} whole log · llm · 700 W$`));
    expect(seg!.missing).toEqual([{ metric: 'throughput', why: expect.stringMatching(/has no work-unit records/) as unknown as string }]);
  });

  it('decimates each series to max_points', async () => {
    const r = await post<Overlay>('overlayTraces', { sources: [{ kind: 'run', run_id: runs[0]!.id }], max_points: 40 });
    expect(r.status).toBe(200);
    for (const s of ['power_w', 'sm_clock_mhz', 'temp_c'] as const) expect(r.json.sources[0]!.devices[0]![s].t.length).toBeLessThanOrEqual(40);
  });

  it('refuses an empty or oversized list at its field, and answers an unknown run with its error', async () => {
    const none = await post<{ code: string; error: string }>('overlayTraces', { sources: [] });
    expect(none.status).toBe(400);
    expect(none.json.error).toMatch(/sources/);
    const many = await post<{ code: string }>('overlayTraces', { sources: Array.from({ length: 25 }, () => ({ kind: 'run', run_id: runs[0]!.id })) });
    expect(many).toMatchObject({ status: 400, json: { code: 'invalid' } });
    const mixed = await post<Overlay>('overlayTraces', { sources: [{ kind: 'run', run_id: 987_654 }, { kind: 'run', run_id: runs[0]!.id }] });
    expect(mixed.json.sources.map((s) => s.error)).toEqual(['no run 987654 in this database', null]);
  });
});
