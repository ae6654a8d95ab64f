// The simulated GPU backend: devices from src/core/sim presets, limits kept in a state file across processes
// (as a driver keeps them), load from the activity files of running simulated workloads. Every device is
// labelled "(simulated)" and reports vendor 'sim', so simulated numbers are never mistaken for measurements.
import { THROTTLE_SW_POWER_CAP, type DeviceInfo, type Sample } from '../../../shared/device';
import { RUN_POWER_SD } from '../../../core/analysis/run-spread';
import { findPreset, PRESET_IDS, type GpuPreset } from '../../../core/sim/presets';
import { nodePart } from '../../../core/sim/variation';
import { findWorkload, resolveParams } from '../../../core/sim/workloads';
import { operatingPoint, type OperatingPoint, type SimLoad } from '../../../core/sim/model';
import { advanceTempC, steadyTempC } from '../../../core/sim/thermal';
import { gaussian } from '../../../core/sim/random';
import { BackendError, type BackendModule, type GpuBackend, type OpenContext, type OpenedGpus } from './backend';
import { PlanError } from '../input/errors';
import { SimClock } from './sim-clock';
import { recordSimTime, simTimeFloor } from './sim-time';
import { loadOrInitState, readLiveActivities, readState, wantedState, writeState, type SimActivity, type SimGpuState } from './sim-state';

export interface SimBackendOptions {
  stateDir: string;
  /** One preset id per device. Default: the existing state file's, else CAPLAB_SIM_DEVICES, else ['h100-sxm']. */
  presets?: string[];
  /** Default: CAPLAB_SIM_CLOCK, else real time. */
  clock?: SimClock;
  /** Seed of the sensor noise. */
  seed?: number;
  /**
   * The (virtual) node these GPUs belong to, part of their UUIDs: several Slurm nodes on one host each get GPUs
   * of their own. Default CAPLAB_SIM_NODE (the cluster job script sets it), else none.
   */
  node?: string;
  /**
   * Look only (a plan check): the devices are those the presets name, as a sweep would set them up, but nothing is
   * written to the state directory (the host's simulated GPUs stay as they are) and limits cannot be set.
   */
  lookOnly?: boolean;
}

/** NVML clocks_event_reasons bit for software thermal slowdown. */
const THROTTLE_SW_THERMAL = 0x20;
/** What the simulator models and what it leaves out (the Devices page shows it; a fan or processes are not simulated). */
const SIM_NOTE = 'simulated device: power, clocks, temperature, utilisation, memory and throttle reasons come from CapLab’s model; no fan, no process list';
/**
 * Device-to-device spread where the cap does not bind: two real H200s of the same kind drew 679.5 and 695.2 W on the same
 * ViT-L/16 run (runs 1 and 2 of bench/results/h200-sampler-cost.md), 2.3 % apart: sd ~1.5 % (two devices: a rough figure).
 */
export const DEVICE_POWER_SD = 0.015;
/** Simulated sensor refresh period: noise is drawn once per period, so re-reads within one agree. */
export const SENSOR_PERIOD_S = 0.1;
/** Re-read the state file and activity files at most this often (real time), so sampling stays cheap. */
const RESCAN_MS = 200;
/** Energy integration step (simulated s); long gaps use at most MAX_SUBSTEPS steps. */
const INTEGRATION_STEP_S = 0.1;
const MAX_SUBSTEPS = 2000;
/** Most readings one drainSamples call returns per device (a drain after a long stall keeps the latest ones). */
const MAX_DRAIN_READINGS = 20_000;

/** A workload's load on a device, placed on real time so any clock can convert it. */
interface DeviceLoad {
  load: Omit<SimLoad, 'elapsed_s'>;
  started_real: number;
  speedup: number;
}

interface DeviceRuntime {
  preset: GpuPreset;
  limit_w: number;
  energy_mj: number;
  temp_c: number;
  /** Simulated time up to which energy and temperature are integrated. */
  t: number;
}

export class SimBackend implements GpuBackend {
  readonly name = 'sim' as const;
  readonly simulated = true;
  private readonly dir: string;
  private readonly clock: SimClock;
  private readonly seed: number;
  private readonly node: string | undefined;
  private lookOnly: boolean;
  private readonly presets: string[] | undefined;
  private devices: DeviceRuntime[] = [];
  private loads = new Map<number, DeviceLoad>();
  private lastScanMs = -Infinity;
  /** Last simulated time sampled per device, recorded on close so the next clock starts after it. */
  private sampledUntil = new Map<number, number>();
  /** Simulated time of the last reading drainSamples returned; null before the first drain. */
  private drainedUntil: number | null = null;
  /** Simulated time of the last counter value readEnergyAt handed out while draining (integrated, not yet committed). */
  private counterReadUntil = -Infinity;

  constructor(opts: SimBackendOptions) {
    this.dir = opts.stateDir;
    this.clock = opts.clock ?? SimClock.fromEnv(process.env) ?? SimClock.startingAfter(this.guard(() => simTimeFloor(opts.stateDir)), 1);
    this.seed = opts.seed ?? 1;
    this.node = opts.node ?? (process.env.CAPLAB_SIM_NODE || undefined);
    this.lookOnly = opts.lookOnly ?? false;
    this.presets = opts.presets;
    this.adoptState(this.guard(() => (this.lookOnly ? wantedState(this.dir, opts.presets, process.env).state : loadOrInitState(this.dir, opts.presets, process.env))));
  }

  /** The plan check passed and its sweep runs on this backend: the presets are set up now, as opening it for the sweep would. */
  allowChanges(): void {
    if (!this.lookOnly) return;
    this.lookOnly = false;
    this.adoptState(this.guard(() => loadOrInitState(this.dir, this.presets, process.env)));
  }

  now(): number {
    return this.clock.now();
  }

  async listDevices(): Promise<DeviceInfo[]> {
    this.rescan(true);
    return this.devices.map((d, index) => ({
      id: `sim:${index}`,
      index,
      backend: 'sim',
      kind: 'gpu',
      name: d.preset.name,
      vendor: 'sim',
      simulated: true,
      uuid: this.node ? `SIM-${this.node}-${d.preset.id}-${index}` : `SIM-${d.preset.id}-${index}`,
      pci_bus_id: null,
      driver: 'caplab-sim',
      vbios: null,
      limit_w: d.limit_w,
      // Like the real MI300X driver, report the limit as set even where the hardware does not enforce it:
      // only measured power reveals that (DOMAIN.md, reviewers' objection 3).
      enforced_limit_w: d.limit_w,
      min_limit_w: d.preset.limits.min_w,
      max_limit_w: d.preset.limits.max_w,
      default_limit_w: d.preset.limits.default_w,
      memory_total_mb: d.preset.memory_mb,
      sensors: {
        power_kinds: ['instant'],
        energy_counter: true,
        energy_counter_check: 'ok',
        update_period_ms: SENSOR_PERIOD_S * 1000,
        note: SIM_NOTE,
      },
    }));
  }

  async sample(indexes: number[]): Promise<Sample[]> {
    this.rescan(false);
    const t = this.clock.now();
    this.advance(t);
    const out: Sample[] = [];
    for (const index of indexes) {
      const d = this.devices[index];
      if (!d) continue;
      const op = this.pointAt(index, t, d.temp_c);
      out.push(this.reading(index, d, op, t));
      if (!this.sampledUntil.has(index) && !this.lookOnly) this.guard(() => recordSimTime(this.dir, index, this.clock, null));
      this.sampledUntil.set(index, t);
    }
    return out;
  }

  /**
   * The device's readings on the interval grid since the last call, like a driver's sample buffer: a sampler that
   * wakes late (a loaded machine, a sped-up clock) still gets every reading, each at its own simulated time. Readings
   * whose time the energy integration has already passed carry no counter value rather than a wrong one.
   */
  drainSamples(indexes: number[], intervalMs: number): Sample[] {
    const now = this.clock.now();
    const step = Math.max(intervalMs, 1) / 1000;
    let from = this.drainedUntil === null ? now : this.drainedUntil + step;
    if ((now - from) / step > MAX_DRAIN_READINGS) from = now - (MAX_DRAIN_READINGS - 1) * step;
    const out: Sample[] = [];
    for (let k = 0; from + k * step <= now + 1e-9; k++) {
      const t = from + k * step;
      this.advance(t);
      for (const index of indexes) {
        const d = this.devices[index];
        if (!d) continue;
        const reading = this.reading(index, d, this.pointAt(index, t, d.temp_c), t);
        out.push(d.t > t + 1e-9 ? { ...reading, energy_mj: null } : reading);
      }
      this.drainedUntil = t;
    }
    for (const index of indexes) {
      if (!this.devices[index]) continue;
      if (!this.sampledUntil.has(index) && !this.lookOnly) this.guard(() => recordSimTime(this.dir, index, this.clock, null));
      this.sampledUntil.set(index, this.drainedUntil ?? now);
    }
    // A changed view (limits, workloads) applies from the last reading on: integrating further now would leave the
    // next drain's first readings behind the integrated state, without counter values.
    // ... but not before a counter value already handed out (readEnergyAt): that value was integrated under the old
    // view, so the old view holds up to its time; readings at or before it then carry no counter value.
    this.rescan(false, Math.max(this.drainedUntil ?? now, this.counterReadUntil));
    return out;
  }

  /**
   * The counter now. While drainSamples runs, the integrated state is left where the last drained reading put it
   * (integrating here would leave the next drained readings behind it, without counter values).
   */
  async readEnergyMj(index: number): Promise<number> {
    return (await this.readEnergyAt(index)).energy_mj;
  }

  /** The counter and the simulated instant it holds: a caller stamping it by the clock around the call would be off. */
  async readEnergyAt(index: number): Promise<{ t: number; energy_mj: number }> {
    const now = this.clock.now();
    if (this.drainedUntil === null) {
      this.rescan(false);
      this.advance(now);
      return { t: now, energy_mj: Math.round(this.device(index).energy_mj) };
    }
    const d = this.device(index);
    this.counterReadUntil = Math.max(this.counterReadUntil, now);
    return { t: now, energy_mj: Math.round(this.integrate(index, d.energy_mj, d.temp_c, d.t, now).energy_mj) };
  }

  async getPowerLimit(index: number): Promise<number> {
    this.rescan(true);
    return this.device(index).limit_w;
  }

  async setPowerLimit(index: number, watts: number): Promise<void> {
    if (this.lookOnly) throw new BackendError(`sim:${index}: opened to look only (a plan check), so no limit is set`, 'sim', 'failed');
    this.rescan(true);
    const d = this.device(index);
    const { min_w, max_w } = d.preset.limits;
    if (!Number.isFinite(watts) || watts < min_w || watts > max_w) {
      throw new BackendError(`power limit ${watts} W is out of range for sim:${index} ${d.preset.name}: allowed ${min_w}-${max_w} W`, 'sim', 'out-of-range');
    }
    // Energy so far was drawn under the old limit.
    this.advance(this.clock.now());
    const state = this.guard(() => readState(this.dir)) ?? this.currentState();
    const entry = state.devices.find((e) => e.index === index);
    if (!entry) throw new BackendError(`sim:${index} vanished from ${this.dir}`, 'sim', 'no-device');
    entry.limit_w = watts;
    this.guard(() => writeState(this.dir, state));
    d.limit_w = watts;
  }

  /** State lives in files and is re-read on demand; only how far simulated time got is left to record. */
  async close(): Promise<void> {
    if (!this.lookOnly) for (const [index, t] of this.sampledUntil) this.guard(() => recordSimTime(this.dir, index, this.clock, t));
    this.sampledUntil.clear();
  }

  private guard<T>(fn: () => T): T {
    try {
      return fn();
    } catch (e) {
      throw new BackendError(`simulated GPUs (${this.dir}): ${(e as Error).message}`, 'sim', 'unavailable');
    }
  }

  private device(index: number): DeviceRuntime {
    const d = this.devices[index];
    if (!d) throw new BackendError(`no simulated device ${index} (have ${this.devices.length})`, 'sim', 'no-device');
    return d;
  }

  private currentState(): SimGpuState {
    return { version: 1, devices: this.devices.map((d, index) => ({ index, preset: d.preset.id, limit_w: d.limit_w })) };
  }

  /** Takes limits (and presets) from the state file; keeps integration state of devices that did not change. */
  private adoptState(state: SimGpuState): void {
    const now = this.clock.now();
    this.devices = state.devices.map((s) => {
      const found = findPreset(s.preset);
      if (!found) throw new BackendError(`unknown simulated GPU preset "${s.preset}" in ${this.dir}`, 'sim', 'unavailable');
      const preset = nodePart(found, this.node, s.index);
      const old = this.devices[s.index];
      if (old && old.preset.id === preset.id) return { ...old, limit_w: s.limit_w };
      return { preset, limit_w: s.limit_w, energy_mj: 0, temp_c: steadyTempC(preset, preset.idle_w), t: now };
    });
  }

  /**
   * Re-reads limits and running workloads. Other processes change both (a sweep sets limits, workloads come
   * and go), so the view is refreshed at most every RESCAN_MS, or now when `force` (limit reads and writes).
   */
  private rescan(force: boolean, integrateTo = this.clock.now()): void {
    const nowMs = Date.now();
    if (!force && nowMs - this.lastScanMs < RESCAN_MS) return;
    this.lastScanMs = nowMs;
    // Integrate up to now (or the last drained reading) under the old view before adopting the new one.
    this.advance(integrateTo);
    const state = this.lookOnly ? null : this.guard(() => readState(this.dir));
    if (state) this.adoptState(state);
    this.loads = this.loadsFrom(readLiveActivities(this.dir));
  }

  private loadsFrom(activities: SimActivity[]): Map<number, DeviceLoad> {
    const loads = new Map<number, DeviceLoad>();
    for (const a of activities) {
      const workload = findWorkload(a.workload);
      if (!workload) continue;
      let clock: SimClock;
      let params;
      try {
        clock = SimClock.parse(a.clock);
        params = resolveParams(workload, a.params);
      } catch {
        continue; // The workload process rejects such input itself; draw idle power meanwhile.
      }
      for (const index of a.devices) {
        loads.set(index, { load: { workload, params }, started_real: clock.realAt(a.started_t), speedup: clock.speedup });
      }
    }
    return loads;
  }

  private pointAt(index: number, t: number, temp_c: number): OperatingPoint {
    const d = this.device(index);
    const l = this.loads.get(index);
    // Elapsed time on the workload's own clock, via real time: correct even when this backend runs on another.
    const load = l ? { ...l.load, elapsed_s: (this.clock.realAt(t) - l.started_real) * l.speedup } : null;
    const op = operatingPoint({ preset: d.preset, load, cap_w: d.limit_w, temp_c });
    if (!l) return op;
    // Real GPUs differ run to run and device to device (RUN_POWER_SD, DEVICE_POWER_SD): one draw per run (keyed by
    // its start) and one per device. A binding cap is regulated by the firmware, so only the run's spread shows there.
    const run = RUN_POWER_SD * gaussian(this.seed, index, Math.round(l.started_real * 1000) % 2 ** 31, 2);
    const device = op.cap_binding ? 0 : DEVICE_POWER_SD * gaussian(this.seed, index, 0, 3);
    return { ...op, power_w: op.power_w * (1 + run + device) };
  }

  /** Integrates energy and temperature of every device up to simulated time t. */
  private advance(t: number): void {
    this.devices.forEach((d, index) => {
      if (t <= d.t) return;
      const next = this.integrate(index, d.energy_mj, d.temp_c, d.t, t);
      d.energy_mj = next.energy_mj;
      d.temp_c = next.temp_c;
      d.t = t;
    });
  }

  /** Energy and temperature of a device at simulated time `to`, integrated from their values at `from`. */
  private integrate(index: number, energy_mj: number, temp_c: number, from: number, to: number): { energy_mj: number; temp_c: number } {
    const gap = to - from;
    if (gap <= 0) return { energy_mj, temp_c };
    const preset = this.device(index).preset;
    const steps = Math.min(MAX_SUBSTEPS, Math.ceil(gap / INTEGRATION_STEP_S));
    const h = gap / steps;
    for (let i = 0; i < steps; i++) {
      const p = this.pointAt(index, from + (i + 0.5) * h, temp_c).power_w;
      energy_mj += p * h * 1000;
      temp_c = advanceTempC(preset, temp_c, p, h);
    }
    return { energy_mj, temp_c };
  }

  /** One sensor reading: true operating point plus seeded noise (about +-1 % + 2 W on power), driver rounding. */
  private reading(index: number, d: DeviceRuntime, op: OperatingPoint, t: number): Sample {
    const tick = Math.floor(t / SENSOR_PERIOD_S);
    const power = op.power_w + gaussian(this.seed, index, tick, 0) * (0.005 * op.power_w + 1);
    // Under a cap the firmware hunts around the target clock in 15 MHz bins.
    const sm = op.cap_binding
      ? Math.max(d.preset.sm_clock_mhz.min, Math.round((op.sm_clock_mhz + gaussian(this.seed, index, tick, 1) * 10) / 15) * 15)
      : Math.round(op.sm_clock_mhz);
    let reasons = 0;
    if (op.cap_binding) reasons |= THROTTLE_SW_POWER_CAP;
    if (op.thermal_slowdown) reasons |= THROTTLE_SW_THERMAL;
    return {
      device_id: `sim:${index}`,
      t,
      power_w: Math.round(power * 100) / 100,
      power_kind: 'instant',
      power_avg_w: null,
      energy_mj: Math.round(d.energy_mj),
      sm_clock_mhz: sm,
      mem_clock_mhz: op.mem_clock_mhz,
      temp_c: Math.round(d.temp_c),
      util_gpu: op.util_gpu,
      util_mem: op.util_mem,
      mem_used_mb: op.mem_used_mb,
      limit_w: d.limit_w,
      throttle_reasons: reasons,
    };
  }
}

/** Registry entry: simulated GPUs, the last resort of `auto`. A plan's `sim` presets, speed-up and seed apply. */
export const simBackend: BackendModule = {
  id: 'sim',
  auto: true,
  vendor: 'none',
  async open(ctx: OpenContext): Promise<OpenedGpus> {
    if (ctx.reopen) return { backend: new SimBackend({ stateDir: typeof ctx.reopen.stateDir === 'string' ? ctx.reopen.stateDir : requireStateDir(ctx) }) };
    const unknown = (ctx.plan?.sim.devices ?? []).map((id, i) => (findPreset(id) ? null : `sim.devices.${i}: unknown simulated GPU preset "${id}" (known: ${PRESET_IDS.join(', ')})`)).filter((x): x is string => x !== null);
    if (unknown.length) throw new PlanError(`invalid plan:\n  ${unknown.join('\n  ')}`, unknown);
    const stateDir = requireStateDir(ctx);
    const clock = SimClock.startingAfter(simTimeFloor(stateDir), ctx.plan?.sim.speedup ?? 1);
    const backend = new SimBackend({ stateDir, presets: ctx.plan?.sim.devices, clock, seed: ctx.plan?.seed, lookOnly: ctx.lookOnly });
    return { backend, timeScale: clock.speedup, reopenOpts: { stateDir }, sim: { stateDir, clock } };
  },
  chosen: (_b, requested) => (requested ? 'simulated GPUs requested' : 'using simulated GPUs'),
};

function requireStateDir(ctx: OpenContext): string {
  if (!ctx.simStateDir) throw new BackendError('sim: no state directory given for the simulated GPUs', 'sim', 'unavailable');
  return ctx.simStateDir;
}
