// Where the standalone exporter's readings come from: the GPU backend, sampled on an interval, and the lab
// database's running sweep (another CapLab process's), read without touching anything.
import { existsSync } from 'node:fs';
import { openDb, type Db } from '../store/db';
import { runningRuns } from '../store/sweeps';
import { isPidAlive } from '../gpu/sim-state';
import type { GpuBackend } from '../gpu/backend';
import type { ActiveRun } from '../../../shared/cluster';
import type { DeviceInfo } from '../../../shared/device';
import type { Sample } from '../../../shared/sample';

/** Where the readings go: the CLI's Prometheus metrics (src/main/cli/prometheus-metrics.ts). */
export interface MetricsSink {
  update(devices: readonly DeviceInfo[], samples: readonly Sample[], run: ActiveRun | null): void;
}

/** The run in progress of a live sweep in this database, if any; its sub-phase is not stored, so 'running'. */
export function runningRun(db: Db): ActiveRun | null {
  const live = runningRuns(db).find((r) => r.pid !== null && isPidAlive(r.pid));
  if (!live) return null;
  const { pid: _pid, ...run } = live;
  return { ...run, phase: 'running' };
}

export interface Poller {
  stop(): Promise<void>;
  /** Resolves after the first reading, so the first scrape has data. */
  ready: Promise<void>;
}

/** Reads the devices every intervalMs and updates the metrics; a failed reading keeps the previous values. */
export function startPolling(backend: GpuBackend, metrics: MetricsSink, intervalMs: number, dbFile: string | null, onError: (e: Error) => void): Poller {
  let db: Db | null = null;
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  let wake: (() => void) | null = null;
  const database = (): Db | null => {
    if (db || !dbFile || !existsSync(dbFile)) return db;
    try {
      db = openDb(dbFile, { readonly: true });
    } catch (e) {
      onError(e as Error);
    }
    return db;
  };
  const tick = async () => {
    try {
      const devices = await backend.listDevices();
      const samples = await backend.sample(devices.map((d) => d.index));
      let run: ActiveRun | null = null;
      try {
        const d = database();
        run = d ? runningRun(d) : null;
      } catch (e) {
        onError(e as Error);
      }
      metrics.update(devices, samples, run);
    } catch (e) {
      onError(e as Error);
    }
  };
  const ready = tick();
  const loop = async () => {
    await ready;
    while (!stopped) {
      await new Promise<void>((r) => {
        wake = r;
        timer = setTimeout(r, intervalMs);
      });
      if (!stopped) await tick();
    }
  };
  const looping = loop();
  return {
    ready,
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      wake?.();
      await looping.catch(() => undefined);
      db?.close();
    },
  };
}
