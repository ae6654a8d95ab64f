/**
 * CPU package power from the Linux powercap RAPL counters: /sys/class/powercap/intel-rapl:N/energy_uj
 * (µJ, wraps to 0 after max_energy_range_uj; the same files exist on AMD CPUs). Each package is a device of kind
 * 'cpu', backend 'rapl'; power is derived from counter deltas between samples (power_kind 'counter') and
 * energy_mj is the unwrapped counter since this reader started.
 *
 * Missing RAPL (no powercap, a VM, non-Linux) or unreadable counters (energy_uj is root-only since Linux 5.10,
 * CVE-2020-8694) are reported through status() with a reason and an empty device list — never thrown at open.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { DeviceInfo, Sample } from '../../../shared/device';
import { BackendError, type BackendModule, type GpuBackend } from './backend';

export interface RaplZone {
  index: number;
  /** Directory name, e.g. intel-rapl:0. */
  zone: string;
  path: string;
  /** Contents of `name`, e.g. package-0. */
  name: string;
  maxRangeUj: number;
}

export interface RaplStatus {
  available: boolean;
  /** Why RAPL is absent or unusable; null when every package zone reads. */
  reason: string | null;
  root: string;
  zones: { index: number; zone: string; name: string; readable: boolean; error: string | null }[];
}

export interface RaplOptions {
  /** powercap root (default /sys/class/powercap); tests point it at a fake tree. */
  root?: string;
  /** Wall clock in epoch seconds (default: a monotonic clock anchored to Date.now()). */
  clock?: () => number;
}

interface ZoneState {
  zone: RaplZone;
  prevUj: number | null;
  prevT: number;
  accUj: number;
  wraps: number;
}

/** Counter delta across at most one wrap: the counter runs 0..max and restarts at 0. */
export function raplDeltaUj(prevUj: number, curUj: number, maxRangeUj: number): number {
  return curUj >= prevUj ? curUj - prevUj : maxRangeUj - prevUj + curUj;
}

export class RaplReader implements GpuBackend {
  readonly name = 'rapl' as const;
  readonly simulated = false;
  readonly root: string;
  private readonly clock: () => number;
  private states: ZoneState[] = [];
  private statusCache: RaplStatus;

  constructor(opts: RaplOptions = {}) {
    this.root = opts.root ?? '/sys/class/powercap';
    const perf0 = performance.now();
    const wall0 = Date.now() / 1000;
    this.clock = opts.clock ?? (() => wall0 + (performance.now() - perf0) / 1000);
    this.statusCache = this.scan();
  }

  private readUj(path: string): number {
    // A blank or partial read must not pass as 0: the next reading would then look like a counter wrap.
    const text = readFileSync(join(path, 'energy_uj'), 'utf8').trim();
    if (!/^\d+$/.test(text)) throw new Error(`energy_uj is not a whole number: "${text.slice(0, 40)}"`);
    return Number(text);
  }

  private scan(): RaplStatus {
    const status: RaplStatus = { available: false, reason: null, root: this.root, zones: [] };
    if (!existsSync(this.root)) {
      status.reason = `${this.root} does not exist (no powercap/RAPL on this machine or kernel)`;
      return status;
    }
    let entries: string[];
    try {
      entries = readdirSync(this.root);
    } catch (e) {
      status.reason = `cannot list ${this.root}: ${(e as Error).message}`;
      return status;
    }
    const zones = entries
      .filter((d) => /^intel-rapl:\d+$/.test(d))
      .sort((a, b) => Number(a.split(':')[1]) - Number(b.split(':')[1]));
    const states: ZoneState[] = [];
    const skipped: string[] = [];
    for (const zone of zones) {
      const path = join(this.root, zone);
      let name = zone;
      try {
        name = readFileSync(join(path, 'name'), 'utf8').trim() || zone;
      } catch {
        // keep the directory name
      }
      // psys (whole platform) overlaps the packages; only packages count as CPU power.
      if (!/^package/i.test(name)) {
        skipped.push(`${zone} (${name})`);
        continue;
      }
      let maxRangeUj: number;
      try {
        maxRangeUj = Number(readFileSync(join(path, 'max_energy_range_uj'), 'utf8').trim());
      } catch {
        maxRangeUj = 0;
      }
      const index = states.length;
      const z: RaplZone = { index, zone, path, name, maxRangeUj: Number.isFinite(maxRangeUj) && maxRangeUj > 0 ? maxRangeUj : 2 ** 32 };
      try {
        const uj = this.readUj(path);
        states.push({ zone: z, prevUj: uj, prevT: this.clock(), accUj: 0, wraps: 0 });
        status.zones.push({ index, zone, name, readable: true, error: null });
      } catch (e) {
        const err = e as NodeJS.ErrnoException;
        const why = err.code === 'EACCES' || err.code === 'EPERM' ? 'permission denied (energy_uj is root-only on Linux 5.10+)' : err.message;
        status.zones.push({ index, zone, name, readable: false, error: why });
      }
    }
    this.states = states;
    const unreadable = status.zones.filter((z) => !z.readable);
    if (status.zones.length === 0) {
      status.reason = `no RAPL package zones under ${this.root}${skipped.length ? ` (only ${skipped.join(', ')})` : ''}`;
    } else if (states.length === 0) {
      status.reason = `RAPL counters unreadable: ${unreadable.map((z) => `${z.zone}: ${z.error}`).join('; ')}`;
    } else if (unreadable.length) {
      status.reason = `some RAPL counters unreadable: ${unreadable.map((z) => `${z.zone}: ${z.error}`).join('; ')}`;
    }
    status.available = states.length > 0;
    return status;
  }

  status(): RaplStatus {
    return structuredClone(this.statusCache);
  }

  now(): number {
    return this.clock();
  }

  async listDevices(): Promise<DeviceInfo[]> {
    return this.states.map((s) => ({
      id: `rapl:${s.zone.index}`,
      index: s.zone.index,
      backend: 'rapl',
      kind: 'cpu',
      name: `CPU ${s.zone.name}`,
      vendor: 'RAPL',
      simulated: false,
      uuid: null,
      pci_bus_id: null,
      driver: null,
      vbios: null,
      limit_w: this.limitW(s.zone),
      enforced_limit_w: null,
      min_limit_w: null,
      max_limit_w: null,
      default_limit_w: null,
      sensors: {
        power_kinds: ['counter'],
        energy_counter: true,
        energy_counter_check: 'ok',
        update_period_ms: null,
        note: `power from ${s.zone.zone}/energy_uj deltas between samples; wraps at ${s.zone.maxRangeUj} uJ`,
      },
    }));
  }

  private limitW(z: RaplZone): number | null {
    try {
      const uw = Number(readFileSync(join(z.path, 'constraint_0_power_limit_uw'), 'utf8').trim());
      return Number.isFinite(uw) && uw > 0 ? uw / 1e6 : null;
    } catch {
      return null;
    }
  }

  /** Reads one zone, advancing its unwrapped accumulator. Returns null when the read fails. */
  private advance(s: ZoneState): { t: number; powerW: number | null; energyMj: number } | null {
    let cur: number;
    try {
      cur = this.readUj(s.zone.path);
    } catch {
      return null;
    }
    const t = this.clock();
    let powerW: number | null = null;
    if (s.prevUj !== null) {
      if (cur < s.prevUj) s.wraps++;
      const d = raplDeltaUj(s.prevUj, cur, s.zone.maxRangeUj);
      s.accUj += d;
      const dt = t - s.prevT;
      powerW = dt > 0 ? d / 1e6 / dt : null;
    }
    s.prevUj = cur;
    s.prevT = t;
    return { t, powerW, energyMj: s.accUj / 1000 };
  }

  async sample(indexes: number[]): Promise<Sample[]> {
    const out: Sample[] = [];
    for (const i of indexes) {
      const s = this.states[i];
      if (!s) continue;
      const r = this.advance(s);
      if (!r) continue;
      out.push({
        device_id: `rapl:${i}`,
        t: r.t,
        power_w: r.powerW,
        power_kind: 'counter',
        power_avg_w: null,
        energy_mj: r.energyMj,
        sm_clock_mhz: null,
        mem_clock_mhz: null,
        temp_c: null,
        util_gpu: null,
        util_mem: null,
        mem_used_mb: null,
        limit_w: null,
        throttle_reasons: null,
      });
    }
    return out;
  }

  /** Unwrapped energy since this reader started, mJ (reading the counter is cheap: one sysfs file). */
  async readEnergyMj(index: number): Promise<number | null> {
    const s = this.states[index];
    if (!s) return null;
    return this.advance(s)?.energyMj ?? null;
  }

  /** Wraps seen per zone (diagnostics). */
  wraps(index: number): number {
    return this.states[index]?.wraps ?? 0;
  }

  async getPowerLimit(index: number): Promise<number> {
    const s = this.states[index];
    const w = s ? this.limitW(s.zone) : null;
    if (w === null) throw new BackendError(`rapl: package ${index} has no readable power limit`, 'rapl', 'unavailable');
    return w;
  }

  async setPowerLimit(): Promise<void> {
    throw new BackendError('rapl: CapLab measures CPU power but does not set CPU power limits', 'rapl', 'unavailable');
  }

  async close(): Promise<void> {}
}

/** Registry entry: CPU package power (RAPL), recorded beside real GPUs; never chosen as the GPU backend. */
export const raplBackend: BackendModule = {
  id: 'rapl',
  auto: false,
  vendor: 'none',
  open: async (ctx) => ({ backend: new RaplReader({ root: ctx.env.CAPLAB_RAPL_ROOT }) }),
  chosen: (b) => `RAPL at ${(b as RaplReader).root}`,
};
