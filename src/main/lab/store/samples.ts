import type { Db } from './db';
import type { Sample } from '../../../shared/device';

export interface SampleContext {
  sweepId: number | null;
  runId: number | null;
  datasetId?: number | null;
}

/** Writes samples in one transaction; deviceIds maps Sample.device_id (backend key) to devices.id. */
export function insertSamples(db: Db, ctx: SampleContext, deviceIds: ReadonlyMap<string, number>, samples: readonly Sample[]): number {
  if (samples.length === 0) return 0;
  const stmt = db.prepare(
    `INSERT INTO samples (sweep_id, run_id, dataset_id, device_id, t, power_w, power_kind, power_avg_w, energy_mj,
       sm_clock_mhz, mem_clock_mhz, temp_c, util_gpu, util_mem, mem_used_mb, limit_w, throttle_reasons)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  let n = 0;
  db.transaction(() => {
    for (const s of samples) {
      const deviceId = deviceIds.get(s.device_id);
      if (deviceId === undefined) continue;
      stmt.run(
        ctx.sweepId, ctx.runId, ctx.datasetId ?? null, deviceId, s.t, s.power_w, s.power_kind, s.power_avg_w, s.energy_mj,
        s.sm_clock_mhz, s.mem_clock_mhz, s.temp_c, s.util_gpu, s.util_mem, s.mem_used_mb, s.limit_w, s.throttle_reasons,
      );
      n++;
    }
  })();
  return n;
}

/** Stored sample row; device_id is the devices table id. */
export interface SampleRow extends Omit<Sample, 'device_id'> {
  device_id: number;
  run_id: number | null;
}

const sampleColumns = `device_id, run_id, t, power_w, power_kind, power_avg_w, energy_mj, sm_clock_mhz, mem_clock_mhz, temp_c,
  util_gpu, util_mem, mem_used_mb, limit_w, throttle_reasons`;

export function samplesInRange(db: Db, deviceId: number, from: number, to: number): SampleRow[] {
  return db
    .prepare(`SELECT ${sampleColumns} FROM samples WHERE device_id = ? AND t >= ? AND t <= ? ORDER BY t`)
    .all(deviceId, from, to) as SampleRow[];
}

/** A device's samples of one sweep in a time range (simulated sweeps' clocks can overlap another sweep's). */
export function sweepSamplesInRange(db: Db, sweepId: number, deviceId: number, from: number, to: number): SampleRow[] {
  return db
    .prepare(`SELECT ${sampleColumns} FROM samples WHERE sweep_id = ? AND device_id = ? AND t >= ? AND t <= ? ORDER BY t`)
    .all(sweepId, deviceId, from, to) as SampleRow[];
}

export function samplesOfRun(db: Db, runId: number, deviceId: number): SampleRow[] {
  return db.prepare(`SELECT ${sampleColumns} FROM samples WHERE run_id = ? AND device_id = ? ORDER BY t`).all(runId, deviceId) as SampleRow[];
}

export function insertMetrics(db: Db, runId: number, rows: readonly { t: number; name: string; value: number }[]): void {
  if (rows.length === 0) return;
  const stmt = db.prepare('INSERT INTO metrics (run_id, t, name, value) VALUES (?, ?, ?, ?)');
  db.transaction(() => {
    for (const r of rows) stmt.run(runId, r.t, r.name, r.value);
  })();
}

export function metricsOfRun(db: Db, runId: number, name: string): { t: number; value: number }[] {
  return db.prepare('SELECT t, value FROM metrics WHERE run_id = ? AND name = ? ORDER BY t').all(runId, name) as { t: number; value: number }[];
}
