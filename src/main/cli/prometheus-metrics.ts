// CapLab's samples in the Prometheus text format, with the metric names and labels of NVIDIA's DCGM exporter
// (so existing Grafana dashboards work unchanged), plus CapLab's own: the limit it set, the sweep run and phase.
// A face's output format, so it lives with the CLI (`caplab exporter`, `caplab serve --metrics`), not in the engine.
import { Counter, Gauge, Registry } from 'prom-client';
import type { ActiveRun } from '../../shared/cluster';
import type { DeviceInfo } from '../../shared/device';
import type { Sample } from '../../shared/sample';

const PHASES = ['idle', 'setting-cap', 'warmup', 'measure', 'cooldown', 'running'] as const;

/** dcgm-exporter's labels: gpu (index), UUID, device (nvidiaN), modelName, Hostname, pci_bus_id. */
const DCGM_LABELS = ['gpu', 'UUID', 'device', 'modelName', 'Hostname', 'pci_bus_id'] as const;
type DcgmLabel = (typeof DCGM_LABELS)[number];

interface Field {
  name: string;
  help: string;
  pick: (s: Sample) => number | null;
}

/** DCGM field names and units (DCGM_FI_DEV_*: W, MHz, C, %, MiB) fed from the matching Sample fields. */
const FIELDS: Field[] = [
  { name: 'DCGM_FI_DEV_POWER_USAGE', help: 'Power draw (in W).', pick: (s) => s.power_w },
  { name: 'DCGM_FI_DEV_SM_CLOCK', help: 'SM clock frequency (in MHz).', pick: (s) => s.sm_clock_mhz },
  { name: 'DCGM_FI_DEV_MEM_CLOCK', help: 'Memory clock frequency (in MHz).', pick: (s) => s.mem_clock_mhz },
  { name: 'DCGM_FI_DEV_GPU_TEMP', help: 'GPU temperature (in C).', pick: (s) => s.temp_c },
  { name: 'DCGM_FI_DEV_GPU_UTIL', help: 'GPU utilization (in %).', pick: (s) => s.util_gpu },
  { name: 'DCGM_FI_DEV_MEM_COPY_UTIL', help: 'Memory utilization (in %).', pick: (s) => s.util_mem },
  { name: 'DCGM_FI_DEV_FB_USED', help: 'Framebuffer memory used (in MiB).', pick: (s) => s.mem_used_mb },
  { name: 'DCGM_FI_DEV_POWER_MGMT_LIMIT', help: 'Power management limit (in W).', pick: (s) => s.limit_w },
  { name: 'DCGM_FI_DEV_CLOCK_THROTTLE_REASONS', help: 'Current clock throttle reasons (bitmask).', pick: (s) => s.throttle_reasons },
];

export class CapLabMetrics {
  readonly registry = new Registry();
  private readonly fields: { field: Field; gauge: Gauge<DcgmLabel> }[];
  private readonly energy: Counter<DcgmLabel>;
  private readonly limit: Gauge<string>;
  private readonly info: Gauge<string>;
  private readonly runInfo: Gauge<string>;
  private readonly phase: Gauge<string>;
  private readonly lastSample: Gauge<string>;

  constructor(private readonly hostname: string) {
    const r = [this.registry];
    this.fields = FIELDS.map((field) => ({ field, gauge: new Gauge({ name: field.name, help: field.help, labelNames: DCGM_LABELS, registers: r }) }));
    this.energy = new Counter({ name: 'DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION', help: 'Total energy consumption since boot (in mJ).', labelNames: DCGM_LABELS, registers: r });
    this.limit = new Gauge({ name: 'caplab_power_limit_watts', help: 'Power limit in force, as CapLab reads it back (W).', labelNames: [...DCGM_LABELS], registers: r });
    this.info = new Gauge({ name: 'caplab_device_info', help: 'A device CapLab samples (1); simulated="true" for simulated GPUs.', labelNames: [...DCGM_LABELS, 'backend', 'simulated', 'driver'], registers: r });
    this.runInfo = new Gauge({ name: 'caplab_sweep_run_info', help: 'The sweep run in progress (1): workload and cap.', labelNames: ['Hostname', 'sweep_id', 'run_id', 'workload', 'cap_w', 'repetition'], registers: r });
    this.phase = new Gauge({ name: 'caplab_run_phase', help: 'Phase of the sweep run in progress: 1 for the current phase, 0 for the others.', labelNames: ['Hostname', 'phase'], registers: r });
    this.lastSample = new Gauge({ name: 'caplab_last_sample_timestamp_seconds', help: 'When CapLab last read the devices (Unix time).', labelNames: ['Hostname'], registers: r });
  }

  private labels(d: DeviceInfo): Record<DcgmLabel, string> {
    return { gpu: String(d.index), UUID: d.uuid ?? '', device: `nvidia${d.index}`, modelName: d.name, Hostname: this.hostname, pci_bus_id: d.pci_bus_id ?? '' };
  }

  /** Replaces every value with this reading (devices that went away disappear). */
  update(devices: readonly DeviceInfo[], samples: readonly Sample[], run: ActiveRun | null, now = Date.now() / 1000): void {
    for (const { gauge } of this.fields) gauge.reset();
    this.energy.reset();
    this.limit.reset();
    this.info.reset();
    this.runInfo.reset();
    this.phase.reset();
    for (const d of devices) {
      const l = this.labels(d);
      this.info.set({ ...l, backend: d.backend, simulated: String(d.simulated), driver: d.driver ?? '' }, 1);
      const s = samples.find((x) => x.device_id === d.id);
      const limit = s?.limit_w ?? d.limit_w;
      if (limit !== null) this.limit.set(l, limit);
      if (!s) continue;
      for (const { field, gauge } of this.fields) {
        const v = field.pick(s);
        if (v !== null && Number.isFinite(v)) gauge.set(l, v);
      }
      // A counter since boot: set by starting from zero (reset above) and adding the reading.
      if (s.energy_mj !== null && s.energy_mj >= 0) this.energy.inc(l, s.energy_mj);
    }
    const current = run?.phase ?? 'idle';
    for (const p of PHASES) this.phase.set({ Hostname: this.hostname, phase: p }, p === current ? 1 : 0);
    if (run) {
      this.runInfo.set({ Hostname: this.hostname, sweep_id: String(run.sweep_id), run_id: String(run.run_id), workload: run.workload, cap_w: String(run.cap_w), repetition: String(run.repetition) }, 1);
    }
    this.lastSample.set({ Hostname: this.hostname }, now);
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }
}
