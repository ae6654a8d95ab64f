import { z } from 'zod';

/**
 * The one sample model. Every reading of a device, live or stored, recorded by a sweep or imported from a log, has
 * these fields; the zod schemas, TypeScript types, block codec and SQL summary columns are all derived from this spec.
 * Adding a field: one entry here (a new, never reused `id`); see docs/architecture.md.
 *
 * - `scale`: stored as round(value * scale), i.e. the stored resolution is 1/scale of the unit (power: 1 mW, the
 *   resolution NVML reports; time: 1 µs).
 * - `codec`: 'delta' for gauges, 'delta2' (delta of deltas) for clocks and counters that grow steadily.
 * - `summary`: the store keeps min/max/sum per block, so plots of millions of samples read summaries only.
 * - `required`: the live schema has no default for it (a backend must say it, even if null).
 */
export const SensorKind = z.enum(['instant', 'average', 'counter']);
export type SensorKind = z.infer<typeof SensorKind>;

interface NumberField {
  readonly id: number;
  readonly type: 'number';
  readonly unit: string;
  readonly scale: number;
  readonly codec: 'delta' | 'delta2';
  readonly summary?: boolean;
  readonly required?: boolean;
  readonly doc: string;
}
interface EnumField {
  readonly id: number;
  readonly type: 'enum';
  readonly required: true;
  readonly doc: string;
}

export const sampleSpec = {
  t: { id: 0, type: 'number', unit: 's', scale: 1e6, codec: 'delta2', required: true, doc: 'wall time, epoch seconds (simulated time for simulated devices)' },
  power_w: { id: 1, type: 'number', unit: 'W', scale: 1000, codec: 'delta', summary: true, required: true, doc: 'power, of the kind power_kind says' },
  power_kind: { id: 2, type: 'enum', required: true, doc: "where power_w came from; 'counter' = from an energy-counter delta" },
  power_avg_w: { id: 3, type: 'number', unit: 'W', scale: 1000, codec: 'delta', summary: true, doc: '1 s average power where the sensor reports one beside the instant value' },
  energy_mj: { id: 4, type: 'number', unit: 'mJ', scale: 1, codec: 'delta2', doc: 'energy counter reading' },
  sm_clock_mhz: { id: 5, type: 'number', unit: 'MHz', scale: 1, codec: 'delta', summary: true, doc: 'SM (graphics) clock' },
  mem_clock_mhz: { id: 6, type: 'number', unit: 'MHz', scale: 1, codec: 'delta', doc: 'memory clock' },
  temp_c: { id: 7, type: 'number', unit: '°C', scale: 10, codec: 'delta', summary: true, doc: 'temperature' },
  util_gpu: { id: 8, type: 'number', unit: '%', scale: 10, codec: 'delta', doc: 'GPU utilisation' },
  util_mem: { id: 9, type: 'number', unit: '%', scale: 10, codec: 'delta', doc: 'memory utilisation' },
  mem_used_mb: { id: 10, type: 'number', unit: 'MB', scale: 1, codec: 'delta', doc: 'memory used' },
  limit_w: { id: 11, type: 'number', unit: 'W', scale: 1000, codec: 'delta', summary: true, doc: 'power limit the device reported' },
  throttle_reasons: { id: 12, type: 'number', unit: 'bits', scale: 1, codec: 'delta', doc: 'clocks event reasons bit mask (NVML)' },
} as const satisfies Record<string, NumberField | EnumField>;

export type SampleField = keyof typeof sampleSpec;
/** The numeric fields other than t (readings). */
export type ReadingField = { [K in SampleField]: (typeof sampleSpec)[K] extends { type: 'number' } ? (K extends 't' ? never : K) : never }[SampleField];
export const sampleFields = Object.keys(sampleSpec) as SampleField[];
export const readingFields = sampleFields.filter((f) => f !== 't' && sampleSpec[f].type === 'number') as ReadingField[];
export const summaryFields = readingFields.filter((f) => (sampleSpec[f] as NumberField).summary === true);
/** Stored scale of a numeric field (values are kept as round(v * scale)). */
export const scaleOf = (f: ReadingField | 't'): number => (sampleSpec[f] as NumberField).scale;
export const codecOf = (f: ReadingField | 't'): 'delta' | 'delta2' => (sampleSpec[f] as NumberField).codec;

type Strict<K extends SampleField> = (typeof sampleSpec)[K] extends { type: 'enum' }
  ? typeof SensorKind
  : K extends 't'
    ? z.ZodNumber
    : (typeof sampleSpec)[K] extends { required: true }
      ? z.ZodNullable<z.ZodNumber>
      : z.ZodDefault<z.ZodNullable<z.ZodNumber>>;

function readingShape(): { [K in SampleField]: Strict<K> } {
  const shape: Record<string, z.ZodType> = {};
  for (const f of sampleFields) {
    const s = sampleSpec[f];
    if (s.type === 'enum') shape[f] = SensorKind;
    else if (f === 't') shape[f] = z.number();
    else shape[f] = 'required' in s && s.required ? z.number().nullable() : z.number().nullable().default(null);
  }
  return shape as { [K in SampleField]: Strict<K> };
}

/**
 * The device key: `host/backend:index/identity` (identity = UUID, else the model name), the one name for a device
 * in stored records, analysis series, traces and sources. A live `Sample` names its device by `device_id`, the
 * host-local `DeviceInfo.id` (`backend:index`), because a backend does not know the host's key.
 */
export const DeviceKey = z.string().min(1);
export type DeviceKey = z.infer<typeof DeviceKey>;

/** One live reading of one device as a backend returns it. */
export const Sample = z.object({ device_id: z.string(), ...readingShape() });
export type Sample = z.infer<typeof Sample>;

/**
 * A reading as the analysis accepts it: any JS number (NaN, Infinity and negatives included) or null. The
 * analysis drops and reports bad readings itself, so one NaN from a driver does not reject a whole sweep.
 */
export const Reading = z.custom<number>((v) => typeof v === 'number', { message: 'expected a number' });

type Lenient<K extends SampleField> = (typeof sampleSpec)[K] extends { type: 'enum' }
  ? typeof SensorKind
  : K extends 't'
    ? typeof Reading
    : (typeof sampleSpec)[K] extends { required: true }
      ? z.ZodNullable<typeof Reading>
      : z.ZodDefault<z.ZodNullable<typeof Reading>>;

function lenientShape(): { [K in SampleField]: Lenient<K> } {
  const shape: Record<string, z.ZodType> = {};
  for (const f of sampleFields) {
    const s = sampleSpec[f];
    if (s.type === 'enum') shape[f] = SensorKind;
    else if (f === 't') shape[f] = Reading;
    else shape[f] = 'required' in s && s.required ? Reading.nullable() : Reading.nullable().default(null);
  }
  return shape as { [K in SampleField]: Lenient<K> };
}

/** A sample inside a device series (store -> analysis -> drill-down): the same fields, lenient readings. */
export const SeriesSample = z.object({ device_id: z.string().optional(), ...lenientShape() });
export type SeriesSample = z.infer<typeof SeriesSample>;
export type SeriesSampleInput = z.input<typeof SeriesSample>;

/**
 * Columnar samples of one device, for bulk writes and reads: `t` and any reading column as a Float64Array
 * (NaN = no reading), power_kind as one kind for the whole batch or a Uint8Array of SensorKind indexes.
 * Rows must be in ascending t within a batch.
 */
export interface SampleColumns {
  n: number;
  t: Float64Array;
  cols: Partial<Record<ReadingField, Float64Array>>;
  power_kind?: SensorKind | Uint8Array;
}

export const sensorKindIndex = (k: SensorKind): number => SensorKind.options.indexOf(k);
export const sensorKindAt = (i: number): SensorKind => SensorKind.options[i] ?? 'average';

/** Rows -> one columnar batch (rows in t order). */
export function columnsOf(rows: readonly Omit<Sample, 'device_id'>[]): SampleColumns {
  const n = rows.length;
  const t = new Float64Array(n);
  const kinds = new Uint8Array(n);
  const cols: Partial<Record<ReadingField, Float64Array>> = {};
  for (const f of readingFields) {
    let any = false;
    for (const r of rows) if (r[f] !== null && r[f] !== undefined) any = true;
    if (any) cols[f] = new Float64Array(n);
  }
  for (let i = 0; i < n; i++) {
    const r = rows[i]!;
    t[i] = r.t;
    kinds[i] = sensorKindIndex(r.power_kind);
    for (const f in cols) {
      const v = r[f as ReadingField];
      cols[f as ReadingField]![i] = v === null || v === undefined ? NaN : v;
    }
  }
  return { n, t, cols, power_kind: kinds };
}
