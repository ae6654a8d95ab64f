// `caplab doctor --json`: what this machine offers CapLab, one check per thing it needs. snake_case, a public
// scripting interface: add fields and check ids, never rename them.
import { z } from 'zod';
import { BackendChoice, BackendName } from './device';
import { ExportEnvironment } from './export';

/** ok: usable as is; unavailable: not here (nothing to fix unless you want it); warning: here but needs action. */
export const DoctorStatus = z.enum(['ok', 'unavailable', 'warning']);
export type DoctorStatus = z.infer<typeof DoctorStatus>;

/**
 * One check. Ids, in the order printed: `backend.<id>` for each backend of the registry (`backend.rapl` is the CPU
 * package energy), `backend.choice` (the backend in use), `power-limits`, `energy-counter`, `slurm`, `chromium`,
 * `data-dir`.
 */
export const DoctorCheck = z.object({
  id: z.string(),
  title: z.string(),
  status: DoctorStatus,
  /** One line: what was found, or why not and what to do about it. */
  detail: z.string(),
  /** How long the probe took (ms); a probe stopped at its time limit says so in `detail`. */
  elapsed_ms: z.number().nonnegative(),
  /** The file, folder, library or tool the check found or looked at; null where none. */
  path: z.string().nullable(),
  /** Backend checks: the devices it lists (0 where it did not open); null for the other checks. */
  devices: z.number().int().nonnegative().nullable(),
});
export type DoctorCheck = z.infer<typeof DoctorCheck>;

export const DoctorReport = z.object({
  schema: z.literal('caplab.doctor/1'),
  environment: ExportEnvironment,
  /** The `--backend` asked for (auto by default), the one it gives here (null: none opens) and why. */
  backend: z.object({ choice: BackendChoice, chosen: BackendName.nullable(), reason: z.string() }),
  /** Wall time of all the probes together (they run at once), ms. */
  wall_ms: z.number().nonnegative(),
  /** Each probe's time limit, ms. */
  timeout_ms: z.number().positive(),
  summary: z.object({ ok: z.number().int(), unavailable: z.number().int(), warning: z.number().int() }),
  checks: z.array(DoctorCheck),
});
export type DoctorReport = z.infer<typeof DoctorReport>;
