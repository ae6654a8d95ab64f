import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { MethodInput, MethodOutput } from '../../../shared/api';
import { resourcesDir } from '../runner/workloads';
import { configName, FacilityConfigError, facilityFromYaml, named, readConfigText } from './config-file';
import { FacilityCancelledError, runFacility } from './pool';
import { searchHost, type HostSearchResult } from '../../../core/facility/host-search';

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
}

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
  try {
    return await runFacility(scenarios, { onProgress, threads: extras.threads, csvDir: extras.csvDir, signal: extras.signal });
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
