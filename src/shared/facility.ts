import { z } from 'zod';

/**
 * Facility planner configuration (`caplab facility CONFIG.yaml`, the Facility page): a site of identical nodes whose
 * jobs (training / colocation) or services (inference) replay measured per-node power profiles. Power in W, time
 * in s unless a name says otherwise. See docs/facility.md.
 */

const positive = (what: string) => z.number({ error: `${what} must be a number` }).positive({ error: `${what} must be > 0` });
const nonNegative = (what: string) => z.number({ error: `${what} must be a number` }).min(0, { error: `${what} must be >= 0` });
const weights = (n: number, what: string) =>
  z
    .array(nonNegative('a weight'), { error: `${what}: a list of ${n} weights` })
    .length(n, { error: `${what} needs exactly ${n} weights` })
    .refine((w) => w.some((x) => x > 0), { error: `${what}: at least one weight must be > 0` });

/** Where a per-node power profile comes from. Exactly one source. */
export const ProfileSource = z
  .object({
    /** A built-in profile shaped like the paper's measurements (see docs/facility.md). */
    builtin: z.string().optional(),
    /** A CSV file with a time column (s) and a power column; relative paths are relative to the config file. */
    csv: z.string().optional(),
    time_col: z.string().default('t_s'),
    power_col: z.string().default('power_W'),
    /** Units of the power column; profiles are checked for plausibility in W per node. */
    units: z.enum(['W', 'kW', 'mW']).default('W'),
    /** The CSV (run, segment) power is summed over this many nodes; divided to get per-node power. */
    nodes: z.number().int().positive().default(1),
    /** A run recorded by CapLab (`caplab sweep`): node power = sum of its devices + node_overhead_w. */
    run: z.object({ db: z.string().optional(), run_id: z.number().int().positive() }).strict().optional(),
    /**
     * An imported dataset's segment (`docs/datasets.md`): a stored segment by id, or a window of a dataset; node power =
     * its GPUs and CPU packages (or the listed device keys) summed + node_overhead_w. A dataset of node-level power
     * only (NLR aggregated profiles: GPU + CPU summed over the job's nodes) gives that series: set `nodes` to its node
     * count and node_overhead_w to 0.
     */
    segment: z
      .object({
        db: z.string().optional(),
        segment_id: z.number().int().positive().optional(),
        dataset_id: z.number().int().positive().optional(),
        start: z.number().optional(),
        end: z.number().optional(),
        device_keys: z.array(z.string()).optional(),
      })
      .strict()
      .refine((s) => s.segment_id !== undefined || (s.dataset_id !== undefined && s.start !== undefined && s.end !== undefined), {
        error: 'give segment_id, or dataset_id with start and end',
      })
      .optional(),
    node_overhead_w: nonNegative('node_overhead_w').default(0),
    /** Inline series (the page and tests). */
    t_s: z.array(z.number()).optional(),
    power_w: z.array(z.number()).optional(),
    /** Start-up and wind-down kept as measured when a job is longer than the profile; the middle loops. */
    ramp_s: nonNegative('ramp_s').optional(),
    tail_s: nonNegative('tail_s').optional(),
  })
  .strict()
  .refine((p) => [p.builtin, p.csv, p.run, p.segment, p.power_w].filter((x) => x !== undefined).length === 1, {
    error: 'give exactly one of builtin, csv, run, segment or t_s/power_w',
  });
export type ProfileSource = z.infer<typeof ProfileSource>;

/** A profile measured at a GPU power cap, and the throughput there relative to uncapped (stretches durations). */
export const CappedProfile = z
  .object({ cap_w: positive('cap_w'), throughput: z.number().gt(0).max(1.5), profile: ProfileSource.optional() })
  .strict();

export const Distribution = z.discriminatedUnion('dist', [
  z.object({ dist: z.literal('fixed'), value: positive('value') }).strict(),
  z.object({ dist: z.literal('uniform'), min: positive('min'), max: positive('max') }).strict(),
  z.object({ dist: z.literal('lognormal'), median: positive('median'), sigma: nonNegative('sigma'), min: positive('min').optional(), max: positive('max').optional() }).strict(),
  z.object({ dist: z.literal('choice'), values: z.array(positive('a value')).min(1), weights: z.array(nonNegative('a weight')).optional() }).strict(),
]);
export type Distribution = z.infer<typeof Distribution>;

export const JobType = z
  .object({
    name: z.string().min(1),
    /** Relative share of arriving jobs. */
    share: positive('share'),
    /** Nodes per job (a whole number drawn from this distribution). */
    nodes: Distribution,
    /** Job duration in hours. */
    duration_h: Distribution,
    profile: ProfileSource,
    at_caps: z.array(CappedProfile).default([]),
    /** Share of this type's running jobs a grid response may pause (their work deferred, not lost); 0 when absent. */
    flexible: z.number({ error: 'flexible must be a number' }).min(0, { error: 'flexible is a share: at least 0' }).max(1, { error: 'flexible is a share: at most 1' }).optional(),
  })
  .strict();
export type JobType = z.infer<typeof JobType>;

export const Arrivals = z
  .object({
    hour_of_day: weights(24, 'arrivals.hour_of_day').default(Array(24).fill(1)),
    /** Monday first. */
    weekday: weights(7, 'arrivals.weekday').default(Array(7).fill(1)),
    month: weights(12, 'arrivals.month').default(Array(12).fill(1)),
  })
  .strict();

/** Node power as a function of the request rate one instance serves (measured by a serving-rate sweep). */
export const RatePower = z
  .object({
    builtin: z.string().optional(),
    /** [requests/s per instance, W per node] pairs, rates ascending. */
    points: z.array(z.tuple([nonNegative('rate'), z.number()])).optional(),
  })
  .strict()
  .refine((p) => (p.builtin === undefined) !== (p.points === undefined), { error: 'give exactly one of builtin or points' });
export type RatePower = z.infer<typeof RatePower>;

export const Service = z
  .object({
    name: z.string().min(1),
    /** Requests/s at the busiest hour of a weekday before the utilisation scaling. */
    peak_rps: positive('peak_rps'),
    day: weights(24, 'day'),
    week: weights(7, 'week').default(Array(7).fill(1)),
    /** Multiplicative log-normal noise per step (sd of the log). */
    noise_sigma: nonNegative('noise_sigma').default(0.1),
    /** Highest request rate one instance serves within the latency limit (requests/s); or give rate_max_from. */
    rate_max: positive('rate_max').optional(),
    /**
     * Read rate_max from an online-serving rate sweep (SGLang bench_serving / vLLM bench serve outputs, one file per
     * request rate, read by the throughput adapters): the highest rate whose latency statistic meets the limit.
     */
    rate_max_from: z
      .object({
        files: z.array(z.string()).min(1),
        metric: z.enum(['ttft', 'itl', 'tpot', 'e2e']).default('e2e'),
        stat: z.string().default('p99'),
        limit_ms: positive('limit_ms'),
      })
      .strict()
      .optional(),
    nodes_per_instance: z.number().int().positive().default(1),
    max_instances: z.number().int().positive(),
    power: RatePower,
    at_caps: z
      .array(z.object({ cap_w: positive('cap_w'), rate_max: positive('rate_max'), power: RatePower }).strict())
      .default([]),
  })
  .strict();
export type Service = z.infer<typeof Service>;

export const Overheads = z
  .object({
    /** Constant PUE (total / IT). Ignored when cooling is given. */
    pue: z.number().min(1, { error: 'pue must be >= 1' }).max(5).default(1),
    /** Cooling power as a fraction of IT power, rising with outdoor temperature above ref_c. */
    cooling: z
      .object({ base_fraction: nonNegative('base_fraction'), per_degc: nonNegative('per_degc').default(0), ref_c: z.number().default(18) })
      .strict()
      .optional(),
    /** UPS / PDU / transformer losses as a fraction of IT power. */
    distribution_loss: z.number().min(0).max(0.5).default(0),
    /** Lights, offices, standby plant: constant W. */
    fixed_w: nonNegative('fixed_w').default(0),
    /** Outdoor temperature: a CSV (timestamp,temp_C, repeated every year) or a sinusoidal climate. */
    temperature: z
      .object({
        csv: z.string().optional(),
        mean_c: z.number().default(10),
        annual_amplitude_c: nonNegative('annual_amplitude_c').default(10),
        daily_amplitude_c: nonNegative('daily_amplitude_c').default(5),
      })
      .strict()
      .default({ mean_c: 10, annual_amplitude_c: 10, daily_amplitude_c: 5 }),
  })
  .strict();
export type Overheads = z.infer<typeof Overheads>;

/** Price (per MWh) and grid carbon intensity (g/kWh): a constant or an hourly CSV (timestamp,value) looped yearly. */
export const Tariff = z
  .object({
    price_per_mwh: nonNegative('price_per_mwh').default(0),
    price_csv: z.string().optional(),
    currency: z.string().default('USD'),
    carbon_g_per_kwh: nonNegative('carbon_g_per_kwh').default(0),
    carbon_csv: z.string().optional(),
  })
  .strict();
export type Tariff = z.infer<typeof Tariff>;

/** A demand-response event: the grid asks at `start` for a reduction due `notice_min` later, held for `duration_h`. */
export const GridEvent = z
  .object({
    name: z.string().optional(),
    /** When the request arrives: an ISO date (UTC), or hours from the simulation start. */
    start: z.union([z.string(), nonNegative('start')]),
    duration_h: positive('duration_h'),
    notice_min: nonNegative('notice_min').default(0),
    /** Reduction below the pre-event baseline (mean facility power over `baseline_h` before the request). */
    reduce_mw: positive('reduce_mw').optional(),
    reduce_pct: z.number().gt(0, { error: 'reduce_pct must be > 0' }).max(100, { error: 'reduce_pct is at most 100' }).optional(),
    /** Or a site limit for the event (MW). */
    limit_mw: positive('limit_mw').optional(),
  })
  .strict()
  .refine((e) => [e.reduce_mw, e.reduce_pct, e.limit_mw].filter((x) => x !== undefined).length === 1, {
    error: 'give exactly one of reduce_mw, reduce_pct or limit_mw',
  });
export type GridEvent = z.infer<typeof GridEvent>;

/**
 * The site's grid connection and its flexibility (docs/facility.md, "Grid"): demand-response events, a firm
 * interconnection limit, a ramp-rate rule, storage and on-site generation, and what the site may do to respond.
 */
export const Grid = z
  .object({
    events: z.array(GridEvent).default([]),
    /** Firm interconnection limit on the facility's grid draw (MW), all year. */
    limit_mw: positive('limit_mw').optional(),
    /** Ramp-rate rule on the grid draw (MW per minute); steps breaking it are counted before and after storage. */
    max_ramp_mw_per_min: positive('max_ramp_mw_per_min').optional(),
    /**
     * Holds the grid draw to max_ramp_mw_per_min with these, in this order: the battery (a rise: charge less, then
     * discharge; a fall: discharge less, then charge) and GPU caps on the jobs starting (rises only; work lost).
     */
    smooth_ramps: z.array(z.enum(['battery', 'caps'])).default([]),
    /** Hours before a request over which the pre-event baseline is the mean facility power. */
    baseline_h: positive('baseline_h').default(1),
    /** What the site may do, in this order after storage and generation: lower GPU caps, then pause flexible jobs. */
    caps: z.boolean().default(true),
    defer: z.boolean().default(true),
    /** Cap levels (W per GPU) for job types on built-in profiles without at_caps. */
    caps_w: z.array(positive('a cap')).default([600, 500, 400, 300, 200]),
    battery: z
      .object({
        mw: positive('battery.mw'),
        mwh: positive('battery.mwh'),
        efficiency: z.number().gt(0, { error: 'efficiency must be > 0' }).max(1, { error: 'efficiency is at most 1' }).default(0.9),
        /** State of charge at the start, a share of mwh. */
        soc_start: z.number().min(0).max(1).default(1),
        /** What it recharges to between events, a share of mwh: default full, or half with smooth_ramps battery (room to absorb falls). */
        standby_soc: z.number().min(0).max(1).optional(),
      })
      .strict()
      .optional(),
    generator: z.object({ mw: positive('generator.mw') }).strict().optional(),
  })
  .strict();
export type Grid = z.infer<typeof Grid>;

const Site = {
  name: z.string().default('facility'),
  seed: z.number().int().default(1),
  /** ISO date the simulation starts (UTC); sets weekday and month of the arrival shapes. */
  start: z.string().default('2025-01-01T00:00:00Z'),
  horizon_days: positive('horizon_days').max(366, { error: 'horizon_days is at most 366' }),
  step_s: z.number().min(1, { error: 'step_s must be >= 1' }).max(3600, { error: 'step_s must be <= 3600' }),
  replicas: z.number().int().min(1).max(64).default(1),
  nodes: z.number().int().positive(),
  idle_w: nonNegative('idle_w'),
  /** Nameplate node power; profiles above it are flagged as probably in the wrong units. */
  rated_w: positive('rated_w'),
  /** Target mean node utilisations, each in (0, 1]. */
  targets: z
    .array(
      z
        .number({ error: 'a utilisation must be a number' })
        .gt(0, { error: 'utilisation must be > 0' })
        .max(1, { error: 'utilisation is a fraction of nodes busy: at most 1 (100 %)' }),
    )
    .min(1),
  allocation: z.enum(['fifo', 'backfill']).default('fifo'),
  arrivals: Arrivals.default({ hour_of_day: Array(24).fill(1), weekday: Array(7).fill(1), month: Array(12).fill(1) }),
  jobs: z.array(JobType).default([]),
  services: z.array(Service).default([]),
  overheads: Overheads.default({ pue: 1, distribution_loss: 0, fixed_w: 0, temperature: { mean_c: 10, annual_amplitude_c: 10, daily_amplitude_c: 5 } }),
  tariff: Tariff.default({ price_per_mwh: 0, currency: 'USD', carbon_g_per_kwh: 0 }),
  /** Fleet GPU power cap (W per GPU); jobs replay their at_caps profile and stretch by its throughput. */
  fleet_cap_w: positive('fleet_cap_w').optional(),
  /**
   * In a scenario: run the same demand (jobs/day or request scale) the named scenario's search found at each target
   * instead of searching again, so a cap shows its delay (higher utilisation, longer waits, incomplete requests).
   */
  same_load_as: z.string().optional(),
  /** Grid interaction: events, an interconnection limit, ramp rules, storage (inference sites respond with fewer instances). */
  grid: Grid.optional(),
};

/** A scenario: a name plus overrides of the site's fields (merged one level deep into objects). */
export const Scenario = z.object({ name: z.string().min(1) }).catchall(z.unknown());

export const FacilityConfig = z
  .object({
    mode: z.enum(['training', 'inference']),
    ...Site,
    scenarios: z.array(Scenario).default([]),
  })
  .strict()
  .superRefine((c, ctx) => {
    if (c.mode === 'training' && c.jobs.length === 0) ctx.addIssue({ code: 'custom', path: ['jobs'], message: 'training mode needs at least one job type' });
    if (c.mode === 'inference' && c.services.length === 0) ctx.addIssue({ code: 'custom', path: ['services'], message: 'inference mode needs at least one service' });
    const steps = (c.horizon_days * 86400) / c.step_s;
    // (A step_s below 1 has its own issue.)
    if (c.step_s >= 1 && steps > 32_000_000) ctx.addIssue({ code: 'custom', path: ['step_s'], message: `horizon_days / step_s gives ${Math.round(steps)} steps; at most 32 M (a year at 1 s)` });
    c.jobs.forEach((j, i) => {
      const max = maxOf(j.nodes);
      if (max > c.nodes) ctx.addIssue({ code: 'custom', path: ['jobs', i, 'nodes'], message: `job type "${j.name}" can ask for ${max} nodes but the pool has ${c.nodes}` });
    });
    c.services.forEach((s, i) => {
      if ((s.rate_max === undefined) === (s.rate_max_from === undefined))
        ctx.addIssue({ code: 'custom', path: ['services', i, 'rate_max'], message: 'give exactly one of rate_max or rate_max_from' });
      if (s.max_instances * s.nodes_per_instance > c.nodes)
        ctx.addIssue({ code: 'custom', path: ['services', i, 'max_instances'], message: `${s.max_instances} instances x ${s.nodes_per_instance} nodes exceed the pool of ${c.nodes}` });
    });
  });
export type FacilityConfig = z.infer<typeof FacilityConfig>;
export type FacilityConfigInput = z.input<typeof FacilityConfig>;

export function maxOf(d: Distribution): number {
  switch (d.dist) {
    case 'fixed':
      return d.value;
    case 'uniform':
      return d.max;
    case 'lognormal':
      return d.max ?? Infinity;
    case 'choice':
      return Math.max(...d.values);
  }
}

const byType = z.record(z.string(), z.number());

/** One demand-response event's outcome. Times in h from the simulation start; reductions against the baseline. */
export const GridEventResult = z.object({
  name: z.string(),
  request_h: z.number(),
  due_h: z.number(),
  end_h: z.number(),
  /** Mean facility grid draw over baseline_h before the request. */
  baseline_w: z.number(),
  requested_w: z.number(),
  limit_w: z.number(),
  delivered_mean_w: z.number(),
  delivered_min_w: z.number(),
  /** Share of the event's steps with the grid draw at or under the event's limit. */
  met_share: z.number(),
  /** From the request to the first step at or under the limit (null: never reached). */
  time_to_reach_min: z.number().nullable(),
  shortfall_mwh: z.number(),
  /** Throughput lost under caps, in node-hours of uncapped work. */
  work_lost_node_h: byType,
  /** Work of paused jobs, returned after the event (the rebound). */
  deferred_node_h: byType,
  jobs_delayed: z.number(),
  added_wait_mean_h: z.number(),
  energy_mwh: z.number(),
  cost: z.number(),
  battery_mwh: z.number(),
  generator_mwh: z.number(),
  /** Highest grid draw after the event until its deferred work has run, above the baseline. */
  rebound_peak_w: z.number(),
  rebound_node_h: z.number(),
  rebound_mwh: z.number(),
  rebound_end_h: z.number(),
  series: z.object({ t_h: z.array(z.number()), requested_w: z.array(z.number()), delivered_w: z.array(z.number()) }),
  /** Inference: requests left incomplete by the instances the response stopped, by service (beyond the schedule's own). */
  incomplete_requests: byType.optional(),
});
export type GridEventResult = z.infer<typeof GridEventResult>;

export const FacilityGridResult = z.object({
  limit_w: z.number().nullable(),
  grid_mean_w: z.number(),
  grid_peak_w: z.number(),
  grid_energy_mwh: z.number(),
  /** Load-duration curve of the grid draw after storage (0, 1 … 100 % of the time). */
  grid_ldc_w: z.array(z.number()),
  /** Hours the site responded to keep under a limit (caps, pauses, storage or generation). */
  hours_at_limit: z.number(),
  /** Hours the grid draw stayed over its limit (the response could not meet it). */
  hours_over_limit: z.number(),
  work_lost_node_h: byType,
  /** Work lost as a share of all busy node-hours. */
  work_lost_share: z.number(),
  deferred_node_h: byType,
  ramp_1min_w: z.number().nullable(),
  ramp_15min_w: z.number().nullable(),
  /** Steps whose 1 min (15 min) change breaks max_ramp_mw_per_min, before storage (facility power) and after (grid draw). */
  ramp_violations_before: z.number(),
  ramp_violations: z.number(),
  /** With grid.smooth_ramps: the same response without smoothing, and what smoothing cost (ramp_violations is after it). */
  ramp_smoothing: z
    .object({
      by: z.array(z.enum(['battery', 'caps'])),
      violations_unsmoothed: z.number(),
      ramp_1min_unsmoothed_w: z.number().nullable(),
      ramp_15min_unsmoothed_w: z.number().nullable(),
      /** Steps whose change the smoothing had to hold (met or not). */
      steps_smoothed: z.number(),
      /** Energy the battery moved for ramps (charged or discharged beyond the response's own use). */
      battery_mwh: z.number(),
      /** Work lost to caps held on rises, in node-hours of uncapped work (also in work_lost_node_h). */
      work_lost_node_h: byType,
    })
    .optional(),
  battery: z.object({ charged_mwh: z.number(), discharged_mwh: z.number(), losses_mwh: z.number(), soc_start_mwh: z.number(), soc_end_mwh: z.number(), cycles: z.number() }).nullable(),
  generator_mwh: z.number(),
  generator_hours: z.number(),
  events: z.array(GridEventResult),
  /** Inference: requests left incomplete by the response over the horizon, by service (in the level's incomplete_requests). */
  incomplete_requests: byType.optional(),
  /** Grid draw after storage, bucket means on the level's series.t_h. */
  series_w: z.array(z.number()),
});
export type FacilityGridResult = z.infer<typeof FacilityGridResult>;

/** One target utilisation's outcome, mean over replicas (sd beside where replicas > 1). */
export const FacilityLevel = z.object({
  target_utilization: z.number(),
  /** Daily job count (training) or demand multiplier (inference) the bisection found. */
  load: z.number(),
  utilization: z.number(),
  mean_w: z.number(),
  peak_w: z.number(),
  p99_w: z.number(),
  mean_total_w: z.number(),
  peak_total_w: z.number(),
  ramp_1min_w: z.number().nullable(),
  ramp_1h_w: z.number().nullable(),
  energy_mwh: z.number(),
  energy_total_mwh: z.number(),
  cost: z.number(),
  carbon_t: z.number(),
  queue_wait_mean_h: z.number(),
  queue_wait_max_h: z.number(),
  jobs_started: z.number(),
  incomplete_requests: z.number(),
  /** Incomplete requests as a fraction of all requests (inference). */
  incomplete_fraction: z.number(),
  replicas: z.number().int(),
  sd: z.object({ mean_w: z.number(), peak_w: z.number(), p99_w: z.number(), utilization: z.number() }),
  /** Load-duration curve of IT power: power exceeded for each fraction of time 0, 0.01 … 1. */
  ldc_w: z.array(z.number()),
  /** IT power series, decimated for plotting: replica 0 plus the replicas' min/max band. */
  series: z.object({ t_h: z.array(z.number()), it_w: z.array(z.number()), total_w: z.array(z.number()), band_lo_w: z.array(z.number()), band_hi_w: z.array(z.number()) }),
  /** The grid response (with `grid` in the config), of replica 1 (the first); power fields are then after the response. */
  grid: FacilityGridResult.optional(),
});
export type FacilityLevel = z.infer<typeof FacilityLevel>;

export const FacilityResult = z.object({
  name: z.string(),
  mode: z.enum(['training', 'inference']),
  nodes: z.number().int(),
  step_s: z.number(),
  horizon_days: z.number(),
  seed: z.number().int(),
  currency: z.string(),
  scenarios: z.array(z.object({ name: z.string(), levels: z.array(FacilityLevel) })),
  /** The first scenario's levels (the baseline), for scripts. */
  levels: z.array(FacilityLevel),
  elapsed_s: z.number(),
  /**
   * The engine keeps replica 1's full-resolution series of every level of its last runs under this key, for the
   * page's zoom (facilitySeries); absent where nothing was kept (the CLI).
   */
  series_key: z.string().optional(),
});
export type FacilityResult = z.infer<typeof FacilityResult>;

/**
 * A window of one level's series (facilitySeries): replica 1 at the simulation step, or bucket means of `bucket_s`
 * where the window holds more steps than asked for. IT and total power, and the grid draw with a grid config.
 */
export const FacilitySeriesSlice = z.object({
  from_h: z.number(),
  to_h: z.number(),
  step_s: z.number(),
  bucket_s: z.number(),
  t_h: z.array(z.number()),
  it_w: z.array(z.number()),
  total_w: z.array(z.number()),
  grid_w: z.array(z.number()).nullable(),
});
export type FacilitySeriesSlice = z.infer<typeof FacilitySeriesSlice>;
