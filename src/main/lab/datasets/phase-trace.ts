// The trace an import's load phases are found on, binned as the batches stream past (on the importing thread, which
// waits on the parser anyway), so finding the phases of a 10 M-sample import does not read every sample back from
// the store at the end: power (instant, else counter-derived, else averaged) and utilisation per device kind.
import type { ColumnBatch } from '../../../core/import';
import { AVERAGE_STEP_LAG_S } from '../../../core/analysis/average-power';
import { NVML_STATED_W } from '../../../core/analysis/energy-uncertainty';
import { detectPhases, GridBinner, type Phase } from '../../../core/segments';
import type { DatasetDeviceKind, ImportDevice } from '../../../shared/dataset';

/** The kinds a dataset's energy can be taken from (energyKindOf): other devices (CPUs) never set its phases. */
const KINDS = ['gpu', 'node', 'facility'] as const;
type PhaseKind = (typeof KINDS)[number];
/** Bins per trace: 4,096 to 8,192 of them at the end, never coarser than the 4,000 a known span would be cut into. */
const BINS = 8192;

export class PhaseTrace {
  private readonly power = KINDS.map(() => new GridBinner(BINS));
  private readonly util = KINDS.map(() => new GridBinner(BINS));
  /** Per kind: 1 once any of its devices logged power. */
  private readonly powered = new Uint8Array(KINDS.length);
  /** Per kind: power readings binned, and how many of them were 1 s averages (whose steps show late). */
  private readonly readings = new Float64Array(KINDS.length);
  private readonly averaged = new Float64Array(KINDS.length);
  /** Per device index of the current file: its slot in KINDS, or -1. */
  private slotOf = new Int8Array(0);

  add(b: ColumnBatch, devices: readonly ImportDevice[]): void {
    if (this.slotOf.length < devices.length) {
      const s = new Int8Array(devices.length);
      s.set(this.slotOf);
      for (let d = this.slotOf.length; d < devices.length; d++) s[d] = KINDS.indexOf(devices[d]!.kind as PhaseKind);
      this.slotOf = s;
    }
    const { t, device, cols } = b;
    const { slotOf, power, util, powered, readings, averaged } = this;
    const inst = cols.power_instant_w;
    const der = cols.power_derived_w;
    const avg = cols.power_avg_w;
    const ut = cols.util_gpu;
    for (let i = 0; i < b.n; i++) {
      const k = slotOf[device[i]!]!;
      if (k < 0) continue;
      let p = inst[i]!;
      if (p !== p) p = der[i]!;
      if (p !== p) {
        p = avg[i]!;
        if (p === p) averaged[k]!++;
      }
      if (p === p) {
        power[k]!.add(t[i]!, p);
        powered[k] = 1;
        readings[k]!++;
      } else if (powered[k] === 0) {
        // Utilisation counts only for a kind that never logged power: once power shows up, it is not read.
        const u = ut[i]!;
        if (u === u) util[k]!.add(t[i]!, u);
      }
    }
  }

  /** Adds another file's trace (once that file is kept: a duplicate's readings never count). */
  merge(o: PhaseTrace): void {
    KINDS.forEach((_, k) => {
      this.power[k]!.merge(o.power[k]!);
      this.util[k]!.merge(o.util[k]!);
      this.powered[k]! |= o.powered[k]!;
      this.readings[k]! += o.readings[k]!;
      this.averaged[k]! += o.averaged[k]!;
    });
  }

  /**
   * Load phases of the devices of `kind`: their summed power (the mean reading times `streams`, so a bin is not
   * biased by how many devices reported in it), else their utilisation; clipped to the dataset's span. Where the
   * power is mostly 1 s averages, edges move back by the averaging lag; levels closer than NVML's stated accuracy
   * per device are one level.
   */
  phases(kind: DatasetDeviceKind | null, streams: number, span: { start: number; end: number }, min_s = 8): PowerPhase[] {
    const k = KINDS.indexOf(kind as PhaseKind);
    if (k < 0) return [];
    const p = this.power[k]!.result();
    const usePower = p.v.length > 0;
    const b = usePower ? { ...p, v: p.v.map((v) => v * streams) } : this.util[k]!.result();
    const lag = usePower && this.averaged[k]! > this.readings[k]! / 2 ? AVERAGE_STEP_LAG_S : 0;
    return detectPhases(b.t, b.v, b.width, { min_s, lag_s: lag, min_step: usePower ? NVML_STATED_W * Math.max(1, streams) : 0 }).map((ph) => ({
      ...ph,
      start: Math.max(span.start, ph.start),
      end: Math.min(span.end, ph.end),
      unit: usePower ? 'W' : '%',
      devices: Math.max(1, streams),
    }));
  }
}

/** A phase of summed power (unit W) or mean utilisation (unit %) over `devices` devices. */
export type PowerPhase = Phase & { unit: string; devices: number };

/**
 * The words a phase's level is given in: per device and, for several, the sum (the chart shows one device's power,
 * a label with only the sum read as eight times too high).
 */
export function phaseLevelWords(ph: PowerPhase, kind: DatasetDeviceKind | null): string {
  const what = kind === 'gpu' || kind === null ? 'GPU' : kind;
  if (ph.unit !== 'W') return `${ph.mean.toFixed(0)} ${ph.unit}${ph.devices > 1 ? ` mean over ${ph.devices} ${what}s` : ''}`;
  if (ph.devices <= 1) return `${ph.mean.toFixed(0)} W`;
  return `${(ph.mean / ph.devices).toFixed(0)} W per ${what}, ${ph.mean.toFixed(0)} W summed over ${ph.devices}`;
}
