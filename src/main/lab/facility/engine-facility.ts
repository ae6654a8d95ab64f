import { randomUUID } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { MethodInput, MethodOutput } from '../../../shared/api';
import { resourcesDir } from '../runner/workloads';
import { configName, FacilityConfigError, facilityFromYaml, named, readConfigText } from './config-file';
import { FacilityCancelledError, runFacility } from './pool';
import { searchHost, type HostSearchResult } from '../../../core/facility/host-search';
import { seriesSlice, type FullSeries } from '../../../core/facility/metrics';
import { LabError } from '../../../shared/errors';

export function facilityResourcesDir(env: NodeJS.ProcessEnv): string {
  return join(resourcesDir(env), 'facility');
}

export function listFacilityConfigs(env: NodeJS.ProcessEnv): MethodOutput<'listFacilityConfigs'> {
  const dir = facilityResourcesDir(env);
  return readdirSync(dir)
    .filter((f) => /\.ya?ml$/.test(f))
    .sort()
    .map((f) => ({ name: f.replace(/\.ya?ml$/, ''), file: join(dir, f), yaml: readFileSync(join(dir, f), 'utf8') }));
}

/** What only the engine's own callers (the CLI) choose: none of it crosses the host. */
export interface FacilityRunExtras {
  /** The config's file, named in errors (default: "facility config" alone, the page's YAML). */
  where?: string;
  threads?: number;
  /** Folder for replica 0's series of every level (NLR facility-profile CSV). */
  csvDir?: string;
  /** The engine's lab database: where `run` and `segment` profiles that name no `db` are read. */
  labDb?: string;
  /** Cancels the run (the page's Cancel). */
  signal?: AbortSignal;
  /** Keeps replica 1's full-resolution series of every level here (the page's zoom); the result gets its key. */
  keep?: FacilitySeriesStore;
}

/**
 * Replica 1's full-resolution series of the last run's levels, for facilitySeries (the page's zoom): only the last
 * run is kept (a year at 1 min is 3 x 2 MB per level in 32-bit floats, ~1 W resolution on a multi-MW site).
 */
export class FacilitySeriesStore {
  private kept: { key: string; levels: Map<string, { full: FullSeries; stepS: number }> } | null = null;

  /** Collects a run's levels; `commit` makes them the kept run and returns its key. */
  collect(): { add: (scenario: string, targetIndex: number, full: FullSeries, stepS: number) => void; commit: () => string } {
    const levels = new Map<string, { full: FullSeries; stepS: number }>();
    const f32 = (x: Float32Array | Float64Array) => (x instanceof Float32Array ? x : Float32Array.from(x));
    return {
      add: (scenario, i, full, stepS) => {
        const it = f32(full.it);
        levels.set(levelKey(scenario, i), { full: { it, total: full.total === full.it ? it : f32(full.total), ...(full.grid ? { grid: f32(full.grid) } : {}) }, stepS });
      },
      commit: () => {
        const key = randomUUID();
        this.kept = { key, levels };
        return key;
      },
    };
  }

  slice(input: MethodInput<'facilitySeries'>): MethodOutput<'facilitySeries'> {
    if (this.kept?.key !== input.series_key) throw new LabError('not_found', `facility series ${input.series_key}: not kept (the engine keeps the last run's series only): run the config again`);
    const level = this.kept.levels.get(levelKey(input.scenario, input.target_index));
    if (!level) throw new LabError('not_found', `facility series ${input.series_key}: no scenario "${input.scenario}" with target index ${input.target_index}`);
    if (!(input.to_h > input.from_h)) throw new LabError('invalid', `facilitySeries: to_h ${input.to_h} must be after from_h ${input.from_h}`);
    return seriesSlice(level.full, level.stepS, input.from_h, input.to_h, input.max_points ?? 20_000);
  }
}

const levelKey = (scenario: string, i: number) => `${scenario}\u0000${i}`;

/** Runs a facility config given as YAML (the page, and `caplab facility` through the engine). */
export async function runFacilityYaml(
  input: MethodInput<'runFacility'>,
  env: NodeJS.ProcessEnv,
  onProgress: (done: number, total: number, label: string) => void,
  extras: FacilityRunExtras = {},
): Promise<MethodOutput<'runFacility'>> {
  const name = configName(extras.where);
  let scenarios = facilityFromYaml(input.yaml, { baseDir: input.base_dir ?? facilityResourcesDir(env), env, where: extras.where, labDb: extras.labDb });
  if (input.scenario !== undefined) {
    const ref = scenarios.find((s) => s.name === input.scenario)?.config.same_load_as;
    scenarios = scenarios.filter((s) => s.name === input.scenario || s.name === ref);
    if (scenarios.length === 0) throw new FacilityConfigError(`${name}: no scenario "${input.scenario}"`);
  }
  scenarios = scenarios.map((s) => ({
    ...s,
    config: { ...s.config, replicas: input.replicas ?? s.config.replicas, horizon_days: input.horizon_days ?? s.config.horizon_days },
  }));
  if (extras.csvDir) mkdirSync(extras.csvDir, { recursive: true });
  const keep = extras.keep?.collect();
  try {
    const r = await runFacility(scenarios, { onProgress, threads: extras.threads, csvDir: extras.csvDir, signal: extras.signal, keepSeries: keep?.add });
    return keep ? { ...r, series_key: keep.commit() } : r;
  } catch (e) {
    if (e instanceof FacilityCancelledError) throw e;
    // Found while simulating (a target the pool cannot reach): named like every other config error.
    named(name, e);
  }
}

/** Runs a facility config file: relative paths in it are read from its folder, errors name it. */
export async function runFacilityFile(
  file: string,
  input: Omit<MethodInput<'runFacility'>, 'yaml' | 'base_dir'>,
  env: NodeJS.ProcessEnv,
  onProgress: (done: number, total: number, label: string) => void,
  extras: Omit<FacilityRunExtras, 'where'> = {},
): Promise<MethodOutput<'runFacility'>> {
  const yaml = readConfigText(file);
  return runFacilityYaml({ ...input, yaml, base_dir: dirname(resolve(file)) }, env, onProgress, { ...extras, where: file });
}

/**
 * The interconnection search (`caplab facility FILE --host-search TARGET:SHARE`): the largest node count of the
 * file's first scenario (or the one named) that its grid.limit_mw hosts at the target, work lost under the share.
 */
export function searchHostFile(file: string, opts: { scenario?: string; target: number; share: number; horizonDays?: number }, env: NodeJS.ProcessEnv, labDb?: string): HostSearchResult {
  const name = configName(file);
  const scenarios = facilityFromYaml(readConfigText(file), { baseDir: dirname(resolve(file)), env, where: file, labDb });
  const sc = opts.scenario === undefined ? scenarios[0] : scenarios.find((s) => s.name === opts.scenario);
  if (!sc) throw new FacilityConfigError(`${name}: no scenario "${opts.scenario}"`);
  try {
    return searchHost(opts.horizonDays === undefined ? sc : { ...sc, config: { ...sc.config, horizon_days: opts.horizonDays } }, opts.target, opts.share);
  } catch (e) {
    named(name, e);
  }
}
