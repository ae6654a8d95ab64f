import { z } from 'zod';
import { reportDocumentFormats } from '../exports';
import { ExportedFile } from '../export';
import { FacilityResult, FacilitySeriesSlice } from '../facility';

/** A facility config to run: its YAML, and what the page may override. */
const FacilityRunInput = z
  .object({
    yaml: z.string().max(5_000_000),
    base_dir: z.string().max(4096).optional(),
    scenario: z.string().max(200).optional(),
    replicas: z.number().int().min(1).max(64).optional(),
    horizon_days: z.number().positive().max(366).optional(),
  })
  .strict();

/** The facility planner (`caplab facility`, the Facility page): configs, runs, their series and reports. */
export const facilityMethods = {
  /** The facility configs shipped in resources/facility (NLR reconstructions), with their YAML. */
  listFacilityConfigs: {
    input: z.object({}).strict(),
    output: z.array(z.object({ name: z.string(), file: z.string(), yaml: z.string() })),
  },
  /**
   * Runs a facility config (same code as `caplab facility`); relative paths in it are read from base_dir (default
   * the shipped resources/facility). Progress streams as `facility.progress`.
   */
  runFacility: {
    input: FacilityRunInput,
    output: FacilityResult,
  },
  /** Cancels the facility runs and reports in progress (they reject with "facility run cancelled"); how many. */
  cancelFacility: {
    input: z.object({}).strict(),
    output: z.object({ cancelled: z.number().int() }),
  },
  /**
   * A window [from_h, to_h) of one level's power series from a run the engine kept (the result's series_key):
   * replica 1 at full resolution, or bucket means when the window has more than max_points steps. A key the engine
   * no longer keeps (it keeps the last runs only) is not_found: run again.
   */
  facilitySeries: {
    input: z
      .object({
        series_key: z.string().max(100),
        scenario: z.string().max(200),
        target_index: z.number().int().min(0),
        from_h: z.number().min(0),
        to_h: z.number().positive(),
        max_points: z.number().int().min(10).max(200_000).default(20_000),
      })
      .strict(),
    output: FacilitySeriesSlice,
  },
  /**
   * The facility report (`caplab facility --pdf/--html`) of a config run as runFacility runs it (same seed, same
   * numbers as the page shows), as a file to save. Progress streams as `facility.progress`.
   */
  facilityReport: {
    input: FacilityRunInput.extend({ format: z.enum(reportDocumentFormats), paper: z.enum(['a4', 'letter']).default('a4'), author: z.string().max(200).optional() }).strict(),
    output: ExportedFile,
  },
} as const;

export const facilityEvents = {
  'facility.progress': z.object({ done: z.number().int(), total: z.number().int(), label: z.string() }),
} as const;
