import { z } from 'zod';
import { Tariff } from './facility';

/**
 * Cost and carbon of a sweep's measured energy (issue #29). The tariff is the facility planner's (src/shared/facility.ts:
 * price per MWh and grid g CO2e/kWh, each a constant or an hourly `timestamp,value` CSV looped yearly), with the
 * constants optional: a figure that is not given is not shown (null), never taken as 0.
 */
export const CostTariff = Tariff.extend({
  price_per_mwh: z.number().min(0, { error: 'price_per_mwh must be >= 0' }).optional(),
  carbon_g_per_kwh: z.number().min(0, { error: 'carbon_g_per_kwh must be >= 0' }).optional(),
}).refine((t) => t.price_per_mwh !== undefined || t.price_csv !== undefined || t.carbon_g_per_kwh !== undefined || t.carbon_csv !== undefined, {
  error: 'a tariff needs a price (price_per_mwh or price_csv) or a grid carbon intensity (carbon_g_per_kwh or carbon_csv)',
});
export type CostTariff = z.infer<typeof CostTariff>;
export type CostTariffInput = z.input<typeof CostTariff>;

/** Cost (tariff currency) and carbon (kg CO2e) of an amount of energy; null where the tariff gives no price / intensity. */
const priced = { energy_j: z.number(), cost: z.number().nullable(), co2e_kg: z.number().nullable() };

export const RunCost = z.object({
  run_id: z.number().int(),
  workload: z.string(),
  device_model: z.string(),
  cap_w: z.number(),
  repetition: z.number().int(),
  /** The measurement window, epoch s. */
  start: z.number(),
  end: z.number(),
  ...priced,
  /** The tariff over the window (time-weighted mean of a CSV, else the constant). */
  price_per_mwh: z.number().nullable(),
  carbon_g_per_kwh: z.number().nullable(),
  /** Counted in the cap's statistics (usable, not flagged out): what the per-million-units figures are of. */
  counted: z.boolean(),
});
export type RunCost = z.infer<typeof RunCost>;

export const CapCost = z.object({
  cap_w: z.number(),
  /** Runs at this cap with a node energy (every one the sweep spent energy on in its window). */
  runs: z.number().int(),
  ...priced,
  /** Of the counted runs only: their work units, and cost / carbon per 1,000,000 of them (sum over sum). */
  counted_runs: z.number().int(),
  units: z.number().nullable(),
  cost_per_million_units: z.number().nullable(),
  co2e_kg_per_million_units: z.number().nullable(),
});
export type CapCost = z.infer<typeof CapCost>;

export const SweepCost = z.object({
  tariff: z.object({
    price_per_mwh: z.number().nullable(),
    price_csv: z.string().nullable(),
    carbon_g_per_kwh: z.number().nullable(),
    carbon_csv: z.string().nullable(),
    currency: z.string(),
  }),
  /** What the energy is: the node energy units/J counts (GPUs + measured CPU, else GPUs + the node overhead). */
  energy_basis: z.string(),
  /** How a CSV tariff meets a run: flat, or its time-weighted mean over the window with the energy spread evenly. */
  method: z.string(),
  runs: z.array(RunCost),
  groups: z.array(z.object({ workload: z.string(), device_model: z.string(), units: z.string().nullable(), caps: z.array(CapCost), ...priced })),
  total: z.object({ runs: z.number().int(), ...priced }),
  notes: z.array(z.string()),
});
export type SweepCost = z.infer<typeof SweepCost>;
