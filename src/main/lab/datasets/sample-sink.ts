// Columnar batches from the parsers -> stored samples of a dataset. Power columns by sensor kind become the
// sample spec's power_w + power_kind (instant, else counter-derived, else average) and power_avg_w.
import type { ColumnBatch } from '../../../core/import';
import type { Db } from '../store/db';

export class DatasetSampleSink {
  private readonly stmt;
  samples = 0;

  constructor(
    db: Db,
    private readonly datasetId: number,
  ) {
    this.stmt = db.prepare(
      `INSERT INTO samples (dataset_id, device_id, t, power_w, power_kind, power_avg_w, energy_mj, sm_clock_mhz, mem_clock_mhz,
         temp_c, util_gpu, util_mem, mem_used_mb, limit_w) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
  }

  /** Writes a batch; deviceRows maps the batch's device index to the devices-table id. */
  write(b: ColumnBatch, deviceRows: readonly number[]): void {
    const c = b.cols;
    const v = (x: number) => (Number.isNaN(x) ? null : x);
    for (let i = 0; i < b.n; i++) {
      const inst = c.power_instant_w[i]!;
      const der = c.power_derived_w[i]!;
      const avg = c.power_avg_w[i]!;
      let power: number;
      let kind: string;
      let avgCol: number | null;
      if (!Number.isNaN(inst)) [power, kind, avgCol] = [inst, 'instant', v(avg)];
      else if (!Number.isNaN(der)) [power, kind, avgCol] = [der, 'counter', v(avg)];
      else [power, kind, avgCol] = [avg, 'average', null];
      this.stmt.run(
        this.datasetId,
        deviceRows[b.device[i]!]!,
        b.t[i]!,
        v(power),
        kind,
        avgCol,
        v(c.energy_mj[i]!),
        v(c.sm_clock_mhz[i]!),
        v(c.mem_clock_mhz[i]!),
        v(c.temp_c[i]!),
        v(c.util_gpu[i]!),
        v(c.util_mem[i]!),
        v(c.mem_used_mb[i]!),
        v(c.limit_w[i]!),
      );
    }
    this.samples += b.n;
  }
}
