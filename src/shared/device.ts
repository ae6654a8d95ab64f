import { z } from 'zod';

export const BackendName = z.enum(['sim', 'nvml', 'nvidia-smi', 'amd-smi', 'rocm-smi', 'rapl']);
export type BackendName = z.infer<typeof BackendName>;
export const BackendChoice = z.enum(['auto', 'sim', 'nvml', 'nvidia-smi', 'amd-smi']);
export type BackendChoice = z.infer<typeof BackendChoice>;

/** Where a sample's power figure came from. 'counter' = derived from an energy-counter delta. */
export const SensorKind = z.enum(['instant', 'average', 'counter']);
export type SensorKind = z.infer<typeof SensorKind>;

export const SensorFacts = z.object({
  power_kinds: z.array(SensorKind),
  energy_counter: z.boolean(),
  /** Result of the start-up check of the energy counter (monotonic, plausible against instant power). */
  energy_counter_check: z.enum(['ok', 'failed', 'unchecked', 'absent']).default('unchecked'),
  /** Measured period between distinct power readings, ms; null when not measured. */
  update_period_ms: z.number().nullable().default(null),
  note: z.string().optional(),
});
export type SensorFacts = z.infer<typeof SensorFacts>;

/** One device as a backend reports it. snake_case: these records are printed as-is by `caplab devices --json`. */
export const DeviceInfo = z.object({
  /** Stable key within a host: `${backend}:${index}`. */
  id: z.string(),
  index: z.number().int().nonnegative(),
  backend: BackendName,
  kind: z.enum(['gpu', 'cpu']),
  name: z.string(),
  vendor: z.string(),
  simulated: z.boolean(),
  uuid: z.string().nullable().default(null),
  pci_bus_id: z.string().nullable().default(null),
  driver: z.string().nullable().default(null),
  vbios: z.string().nullable().default(null),
  limit_w: z.number().nullable(),
  enforced_limit_w: z.number().nullable().default(null),
  min_limit_w: z.number().nullable(),
  max_limit_w: z.number().nullable(),
  default_limit_w: z.number().nullable(),
  sensors: SensorFacts,
});
export type DeviceInfo = z.infer<typeof DeviceInfo>;

/** One reading of one device. t is wall time in seconds since the epoch (simulated time for simulated devices). */
export const Sample = z.object({
  device_id: z.string(),
  t: z.number(),
  power_w: z.number().nullable(),
  power_kind: SensorKind,
  /** Average power over the last second where the sensor reports one alongside the instant value. */
  power_avg_w: z.number().nullable().default(null),
  energy_mj: z.number().nullable().default(null),
  sm_clock_mhz: z.number().nullable().default(null),
  mem_clock_mhz: z.number().nullable().default(null),
  temp_c: z.number().nullable().default(null),
  util_gpu: z.number().nullable().default(null),
  util_mem: z.number().nullable().default(null),
  mem_used_mb: z.number().nullable().default(null),
  limit_w: z.number().nullable().default(null),
  throttle_reasons: z.number().int().nullable().default(null),
});
export type Sample = z.infer<typeof Sample>;

/** clocks_event_reasons bit for the software power cap (NVML). */
export const THROTTLE_SW_POWER_CAP = 0x4;
