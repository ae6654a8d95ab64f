import { describe, expect, it } from 'vitest';
import { replaySweep } from '../../src/renderer/state/console-replay';
import { live } from '../../src/renderer/state/live';
import { useToasts } from '../../src/renderer/state/toasts';
import { ApiCallError } from '../../src/renderer/api/transport';
import { RunRecord, type RunTraces } from '../../src/shared/records';

const run = (id: number, sweep: number, t0: number) =>
  RunRecord.parse({
    id, sweep_id: sweep, workload: 'vit_l_16', cap_w: 200 + 100 * id, repetition: 1, order: id, status: 'done', exit_code: 0, error: null,
    started_at: t0, ended_at: t0 + 9, warmup_end: t0 + 2, measure_start: t0 + 2, measure_end: t0 + 8, units: 'images',
    throughput: 100, mean_power_w: 250, energy_j: 1500, efficiency: 0.4, energy_sensor: 'counter', enforced_limit_w: 300,
  });
const xy = (t: number[]) => ({ t, v: t.map((x) => x / 10) });
const traces = (runId: number, t: number[]): RunTraces => ({ run_id: runId, devices: [{ device_id: 'sim:0', power_w: xy(t), sm_clock_mhz: xy(t), temp_c: xy(t), limit_w: xy(t) }], throughput: xy(t) });
const shownThroughput = () => live.throughput.decimated(live.throughput.capacity).t;

describe('console replay of a stored sweep', () => {
  it('skips a run deleted meanwhile (not_found) and replays the others, with no error shown', async () => {
    const runs = [run(1, 41, 100), run(2, 41, 110), run(3, 41, 120)];
    const fetched: number[] = [];
    await replaySweep(41, runs, async ({ run_id: id }) => {
      fetched.push(id);
      if (id === 2) throw new ApiCallError('no run 2', 'not_found', 404);
      return traces(id, id === 1 ? [101, 102] : [121]);
    });
    expect(fetched).toEqual([1, 2, 3]);
    expect(live.sweepId).toBe(41);
    expect(shownThroughput()).toEqual([101, 102, 121]);
    expect(useToasts.getState().toasts).toEqual([]);
  });

  it('says when the host cannot be reached, stops fetching, and still shows what it got', async () => {
    const runs = [run(1, 42, 200), run(2, 42, 210), run(3, 42, 220)];
    const fetched: number[] = [];
    await replaySweep(42, runs, async ({ run_id: id }) => {
      fetched.push(id);
      if (id === 2) throw new ApiCallError('cannot reach the CapLab host: connection refused', 'unavailable');
      return traces(id, [201 + 10 * (id - 1)]);
    });
    expect(fetched).toEqual([1, 2]);
    expect(shownThroughput()).toEqual([201]);
    expect(useToasts.getState().toasts).toMatchObject([{ kind: 'error', text: 'cannot reach the CapLab host: connection refused' }]);
  });
});
