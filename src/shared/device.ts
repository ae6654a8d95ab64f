import { z } from 'zod';
import { SensorKind } from './sample';
import { backendChoices, backendIds } from './backends';

/** Every backend (src/shared/backends.ts lists them, one line each). */
export const BackendName = z.enum(backendIds);
export type BackendName = z.infer<typeof BackendName>;
/** What `--backend`, a plan's `backend` and the pages offer: auto, then each choosable backend. */
export const BackendChoice = z.enum(backendChoices);
export type BackendChoice = z.infer<typeof BackendChoice>;

// The sample model lives in sample.ts; these re-exports keep the existing imports working.
export { Sample, SensorKind } from './sample';

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
  /** Total device memory, MB; absent or null where the backend does not report it (added in 0.2; older records lack it). */
  memory_total_mb: z.number().nullable().optional(),
  sensors: SensorFacts,
});
export type DeviceInfo = z.infer<typeof DeviceInfo>;


/** clocks_event_reasons bit for the software power cap (NVML). */
export const THROTTLE_SW_POWER_CAP = 0x4;
