import { join } from 'node:path';
import { openDb } from '../src/main/lab/store/db';
import { upsertDevice } from '../src/main/lab/store/devices';
import { insertSamples } from '../src/main/lab/store/samples';
import type { DeviceInfo, Sample } from '../src/shared/device';
import { cpuSeconds, type BenchResult } from './harness';

const device: DeviceInfo = {
  id: 'sim:0', index: 0, backend: 'sim', kind: 'gpu', name: 'bench', vendor: 'sim', simulated: true, uuid: null, pci_bus_id: null,
  driver: null, vbios: null, limit_w: 700, enforced_limit_w: 700, min_limit_w: 200, max_limit_w: 700, default_limit_w: 700,
  sensors: { power_kinds: ['instant'], energy_counter: true, energy_counter_check: 'ok', update_period_ms: 100 },
};

function samples(n: number, t0: number): Sample[] {
  return Array.from({ length: n }, (_, i) => ({
    device_id: 'sim:0', t: t0 + i * 0.1, power_w: 400 + (i % 50), power_kind: 'instant', power_avg_w: null, energy_mj: i * 40,
    sm_clock_mhz: 1700, mem_clock_mhz: 2600, temp_c: 60, util_gpu: 100, util_mem: 50, mem_used_mb: 40000, limit_w: 500, throttle_reasons: 4,
  }));
}

/**
 * Sample writes as the sweep does them (one transaction per 250 ms flush, here 100 rows) against the naive baseline
 * (one autocommitted INSERT per sample), both on a WAL file with synchronous=NORMAL. 8 GPUs at 10 Hz is 80 rows/s.
 */
export async function run(dir: string): Promise<BenchResult> {
  const db = openDb(join(dir, 'bench.db'));
  const ids = new Map([['sim:0', upsertDevice(db, 'bench', device)]]);
  const batchedN = 200_000;
  const baselineN = 20_000;
  const batched = await cpuSeconds(() => {
    const all = samples(batchedN, 0);
    for (let i = 0; i < all.length; i += 100) insertSamples(db, { sweepId: null, runId: null }, ids, all.slice(i, i + 100));
  });
  const baseline = await cpuSeconds(() => {
    for (const s of samples(baselineN, 1e6)) insertSamples(db, { sweepId: null, runId: null }, ids, [s]);
  });
  db.close();
  const batchedRate = batchedN / batched.wall_s;
  const baselineRate = baselineN / baseline.wall_s;
  return {
    name: 'store: batched sample inserts',
    ratio_label: 'rows/s batched (100 per transaction) / rows/s one transaction per row',
    ratio: batchedRate / baselineRate,
    target: 5,
    better: 'higher',
    details: { batched_rows_per_s: Math.round(batchedRate), baseline_rows_per_s: Math.round(baselineRate), batched_cpu_us_per_row: (batched.cpu_s / batchedN) * 1e6 },
  };
}
