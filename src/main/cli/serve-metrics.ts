// The browser host's opt-in /metrics (`caplab serve --metrics`): the same metrics as `caplab exporter`, fed by the
// engine in-process, so the run's phase (warm-up, measure, cool-down) is exact rather than 'running'.
// A face of the engine (it subscribes to it), so it lives beside the CLI rather than in lab/cluster.
import { hostname } from 'node:os';
import type { Engine } from '../lab';
import type { DeviceInfo } from '../../shared/device';
import type { Sample } from '../../shared/sample';
import type { ActiveRun } from '../../shared/cluster';
import { CapLabMetrics } from './prometheus-metrics';

export interface HostMetrics {
  metrics: CapLabMetrics;
  ready: Promise<void>;
  stop(): void;
}

export function attachMetrics(engine: Engine, intervalMs: number, onError: (e: Error) => void): HostMetrics {
  const metrics = new CapLabMetrics(hostname());
  let devices: DeviceInfo[] = [];
  let samples: Sample[] = [];
  let run: ActiveRun | null = null;
  const unsubscribe = engine.subscribe((name, p) => {
    if (name === 'sweep.progress') {
      run =
        p.run_id !== null && p.workload !== null && p.cap_w !== null && p.phase !== 'idle'
          ? { sweep_id: p.sweep_id, run_id: p.run_id, workload: p.workload, cap_w: p.cap_w, repetition: p.repetition ?? 0, phase: p.phase }
          : null;
      metrics.update(devices, samples, run);
    } else if (name === 'sweep.finished') {
      run = null;
      metrics.update(devices, samples, run);
    }
  });
  const tick = async () => {
    try {
      if (devices.length === 0) devices = (await engine.listDevices({})).devices.filter((d) => d.kind === 'gpu');
      samples = (await engine.sampleDevices({})).samples;
      metrics.update(devices, samples, run);
    } catch (e) {
      onError(e as Error);
    }
  };
  const ready = tick();
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    void tick().finally(() => (busy = false));
  }, intervalMs);
  return {
    metrics,
    ready,
    stop() {
      clearInterval(timer);
      unsubscribe();
    },
  };
}
