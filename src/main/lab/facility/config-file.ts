import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { FacilityConfig, type ProfileSource } from '../../../shared/facility';
import type { ScenarioInput } from '../../../core/facility/model';
import { FacilityConfigError } from '../input/errors';
import { numberAt, pathOf, readCsv, readYearCsv } from '../input/csv-file';
import { FACILITY_WORDS, issueLines, planIssuesOf } from '../input/issues';
import { buildModel } from '../../../core/facility/model';
import { FacilityInputError } from '../../../core/facility/profile';
import { openDb, type Db } from '../store/db';
import { getDevice } from '../store/devices';
import { getDataset, getSegment } from '../store/datasets';
import { readSamples, streamsOf } from '../store/sample-blocks';
import { loadSources } from '../analysis/sources';
import { LoadError } from '../analysis/load';
import { dbPath } from '../files/paths';
import { readThroughput } from '../../../core/adapters';
import { rateMaxFrom, type ServingPoint } from '../../../core/facility/rate-max';

export { FacilityConfigError };

export interface LoadOptions {
  /** Folder relative paths in the config are read from (the config file's folder). */
  baseDir: string;
  env?: NodeJS.ProcessEnv;
  /** Where the config came from (its file), named in every error: "facility config FILE: jobs[0].nodes: …". */
  where?: string;
  /** The lab database `run` and `segment` profiles that name none are read from (default: CAPLAB_DB, else the user's). */
  labDb?: string;
}

/** How errors name the config: "facility config FILE", or "facility config" for YAML that has no file (the page's). */
export function configName(where: string | undefined): string {
  return where ? `facility config ${where}` : 'facility config';
}

/** An error raised while reading or checking a config, as one naming the config (and the scenario, when several). */
export function named(name: string, e: unknown, scenario?: string): never {
  if (e instanceof FacilityConfigError && e.message.startsWith(name)) throw e;
  if (e instanceof FacilityConfigError || e instanceof FacilityInputError) {
    const message = `${name}: ${scenario ? `scenario "${scenario}": ` : ''}${e.message}`;
    throw new FacilityConfigError(message);
  }
  throw e;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function parse(value: unknown, name: string): FacilityConfig {
  const r = FacilityConfig.safeParse(value);
  if (!r.success) {
    const issues = planIssuesOf(r.error.issues, value, FACILITY_WORDS);
    const errors = issueLines(issues, FACILITY_WORDS);
    throw new FacilityConfigError(errors.length === 1 ? `${name}: ${errors[0]}` : `${name}:\n  ${errors.join('\n  ')}`, errors, 'invalid', issues);
  }
  return r.data;
}

/**
 * The scenarios of a config: the base alone when none are listed, else each scenario's overrides merged over the
 * base (objects one level deep) and validated on their own, errors prefixed with the scenario.
 */
export function scenarioConfigs(raw: unknown, name: string): { name: string; config: FacilityConfig }[] {
  const base = parse(raw, name);
  if (base.scenarios.length === 0) return [{ name: 'baseline', config: base }];
  const rawBase = { ...(raw as Record<string, unknown>) };
  delete rawBase.scenarios;
  const out = base.scenarios.map((sc, i) => {
    const merged: Record<string, unknown> = { ...rawBase };
    for (const [k, v] of Object.entries(sc)) {
      if (k === 'name') continue;
      merged[k] = isPlainObject(v) && isPlainObject(merged[k]) ? { ...(merged[k] as Record<string, unknown>), ...v } : v;
    }
    return { name: sc.name, config: parse(merged, `${name}: scenarios[${i}] (${sc.name})`) };
  });
  out.forEach((sc, i) => {
    const ref = sc.config.same_load_as;
    if (ref === undefined) return;
    const target = out.find((o) => o.name === ref);
    const field = `${name}: scenarios[${i}] (${sc.name}).same_load_as`;
    if (!target) throw new FacilityConfigError(`${field}: no scenario "${ref}"`);
    if (target.config.same_load_as !== undefined) throw new FacilityConfigError(`${field}: "${ref}" takes its load from another scenario itself; name the one that searches`);
    if (target.config.mode !== sc.config.mode || JSON.stringify(target.config.targets) !== JSON.stringify(sc.config.targets))
      throw new FacilityConfigError(`${field}: "${ref}" must have the same mode and targets`);
  });
  return out;
}

/**
 * A config's scenarios, self-contained and checked: the YAML validated, every CSV and recorded run it names read,
 * and each scenario's model built once (profiles in the wrong units, empty ones, …), every error naming the config.
 */
export function facilityFromYaml(text: string, opts: LoadOptions): ScenarioInput[] {
  const name = configName(opts.where);
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (e) {
    throw new FacilityConfigError(`${name}: not valid YAML: ${(e as Error).message}`);
  }
  const scenarios = resolveScenarios(raw, opts);
  for (const sc of scenarios) {
    try {
      buildModel(sc);
    } catch (e) {
      named(name, e, scenarios.length > 1 ? sc.name : undefined);
    }
  }
  return scenarios;
}

/** A config file's text; a missing or unreadable file is a config error naming it. */
export function readConfigText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    throw new FacilityConfigError(`${configName(file)}: cannot read it (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
}

export function readFacilityFile(file: string, env?: NodeJS.ProcessEnv): ScenarioInput[] {
  return facilityFromYaml(readConfigText(file), { baseDir: dirname(resolve(file)), env, where: file });
}

/** Reads every CSV and recorded run a config names so the scenarios are self-contained (workers, the page). */
function resolveScenarios(raw: unknown, opts: LoadOptions): ScenarioInput[] {
  const configs = scenarioConfigs(raw, configName(opts.where));
  return configs.map(({ name, config }) => {
    try {
      return resolveSources(name, config, opts);
    } catch (e) {
      named(configName(opts.where), e, configs.length > 1 ? name : undefined);
    }
  });
}

function resolveSources(name: string, config: FacilityConfig, opts: LoadOptions): ScenarioInput {
  const inline = (src: ProfileSource, field: string): ProfileSource => readProfile(src, field, opts);
  const jobs = config.jobs.map((j, i) => ({
    ...j,
    profile: inline(j.profile, `jobs[${i}].profile`),
    at_caps: j.at_caps.map((a, k) => ({ ...a, profile: a.profile && inline(a.profile, `jobs[${i}].at_caps[${k}].profile`) })),
  }));
  const t = config.tariff;
  const series: ScenarioInput['series'] = {
    price: t.price_csv ? readYearCsv(t.price_csv, 'tariff.price_csv', opts) : undefined,
    carbon: t.carbon_csv ? readYearCsv(t.carbon_csv, 'tariff.carbon_csv', opts) : undefined,
    temperature: config.overheads.temperature.csv ? readYearCsv(config.overheads.temperature.csv, 'overheads.temperature.csv', opts) : undefined,
  };
  const services = config.services.map((sv, i) => (sv.rate_max_from ? { ...sv, rate_max: readRateMax(sv.rate_max_from, `services[${i}].rate_max_from`, opts) } : sv));
  return { name, config: { ...config, jobs, services }, series };
}

/** rate_max from serving benchmark outputs read by the throughput adapters (SGLang / vLLM text or JSON). */
function readRateMax(from: NonNullable<FacilityConfig['services'][number]['rate_max_from']>, field: string, opts: LoadOptions): number {
  const what = `${from.stat} ${from.metric} latency`;
  const points: ServingPoint[] = from.files.map((f) => {
    let text: string;
    try {
      text = readFileSync(pathOf(f, opts), 'utf8');
    } catch (e) {
      throw new FacilityConfigError(`${field}.files: cannot read ${f}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
    let d: Record<string, unknown>;
    try {
      d = readThroughput(text, { file: f }).details;
    } catch (e) {
      throw new FacilityConfigError(`${field}.files: ${(e as Error).message}`);
    }
    const configured = Number(d.request_rate);
    const rate = Number.isFinite(configured) && configured > 0 ? configured : typeof d.request_throughput === 'number' ? d.request_throughput : null;
    const lat = (d[`${from.metric}_ms`] as Record<string, number> | null)?.[from.stat];
    return { file: f, rate, latencyMs: typeof lat === 'number' ? lat : null };
  });
  return rateMaxFrom(points, from.limit_ms, field, what);
}

function readProfile(src: ProfileSource, field: string, opts: LoadOptions): ProfileSource {
  if (src.csv !== undefined) {
    const { header, rows } = readCsv(src.csv, `${field}.csv`, opts);
    const ti = header.indexOf(src.time_col);
    const pi = header.indexOf(src.power_col);
    if (ti < 0) throw new FacilityConfigError(`${field}.time_col: ${src.csv} has no column "${src.time_col}" (columns: ${header.join(', ')})`);
    if (pi < 0) throw new FacilityConfigError(`${field}.power_col: ${src.csv} has no column "${src.power_col}" (columns: ${header.join(', ')})`);
    const t = numberAt(rows, ti, `${field}.csv`, src.csv);
    return { ...src, csv: undefined, t_s: t.map((x) => x - t[0]!), power_w: numberAt(rows, pi, `${field}.csv`, src.csv) };
  }
  if (src.run !== undefined) return { ...src, run: undefined, ...readRun(src.run, field, opts), units: 'W' };
  if (src.segment !== undefined) return { ...src, segment: undefined, ...readSegment(src.segment, field, opts), units: 'W' };
  return src;
}

type PowerRow = { t: number; power_w: number | null };

/** Node power from devices' samples: their power summed on the first device's sampling times (sample-and-hold). */
function summedPower(series: readonly (readonly PowerRow[])[], field: string, what: string): { t_s: number[]; power_w: number[] } {
  const withPower = series.map((d) => d.filter((r) => r.power_w !== null && Number.isFinite(r.power_w)));
  const base = withPower[0];
  if (!base || base.length === 0) throw new FacilityConfigError(`${field}: ${what} has no power samples`);
  const idx = withPower.map(() => 0);
  const t0 = base[0]!.t;
  const power_w = base.map((row) => {
    let sum = 0;
    withPower.forEach((s, k) => {
      while (idx[k]! < s.length - 1 && s[idx[k]! + 1]!.t <= row.t) idx[k]!++;
      sum += s[idx[k]!]?.power_w ?? 0;
    });
    return sum;
  });
  return { t_s: base.map((r) => r.t - t0), power_w };
}

/** The database a run or segment reference names (default the user's lab database), opened read-only. */
function withDb<T>(ref: { db?: string }, field: string, opts: LoadOptions, read: (db: Db, file: string) => T): T {
  const file = ref.db ? pathOf(ref.db, opts) : (opts.labDb ?? dbPath(undefined, opts.env));
  let db: Db;
  try {
    db = openDb(file, { readonly: true });
  } catch (e) {
    throw new FacilityConfigError(`${field}.db: cannot open ${file}: ${(e as Error).message}`);
  }
  try {
    return read(db, file);
  } finally {
    db.close();
  }
}

/** A CapLab run's node power: its GPUs' and CPU packages' series (the run as the analysis reads it) summed. */
function readRun(ref: { db?: string; run_id: number }, field: string, opts: LoadOptions): { t_s: number[]; power_w: number[] } {
  return withDb(ref, `${field}.run`, opts, (db, file) => {
    let run;
    try {
      run = loadSources(db, [{ kind: 'run', run_id: ref.run_id }]).runs[0]!;
    } catch (e) {
      if (e instanceof LoadError) throw new FacilityConfigError(`${field}.run.run_id: ${e.message.replace('this database', file)}`);
      throw e;
    }
    return summedPower([...(run.devices ?? []), ...(run.cpu ?? [])].map((d) => d.samples ?? []), `${field}.run.run_id`, `run ${ref.run_id}`);
  });
}

/**
 * An imported dataset segment's node power: its GPUs and CPU packages (or the devices named) in its window, summed;
 * a dataset of node-level power only (NLR aggregated profiles, GPU + CPU summed over the job's nodes) gives that.
 */
function readSegment(ref: NonNullable<ProfileSource['segment']>, field: string, opts: LoadOptions): { t_s: number[]; power_w: number[] } {
  return withDb(ref, `${field}.segment`, opts, (db, file) => {
    const stored = ref.segment_id === undefined ? undefined : getSegment(db, ref.segment_id);
    if (ref.segment_id !== undefined && !stored) throw new FacilityConfigError(`${field}.segment.segment_id: no dataset segment ${ref.segment_id} in ${file}`);
    const datasetId = ref.dataset_id ?? stored!.dataset_id;
    const [start, end] = [ref.start ?? stored!.start, ref.end ?? stored!.end];
    if (!getDataset(db, datasetId)) throw new FacilityConfigError(`${field}.segment.dataset_id: no dataset ${datasetId} in ${file}`);
    const keys = ref.device_keys ?? stored?.device_keys ?? null;
    const streams = streamsOf(db, { dataset_id: datasetId }).map((s) => ({ stream: s.stream_id, device: getDevice(db, s.device_row)! }));
    const parts = streams.some((s) => s.device.kind === 'gpu' || s.device.kind === 'cpu') ? ['gpu', 'cpu'] : ['node'];
    const devices = streams
      .filter((s) => (keys ? keys.includes(s.device.device_key) : parts.includes(s.device.kind)))
      .sort((a, b) => Number(b.device.kind === 'gpu') - Number(a.device.kind === 'gpu'));
    const missing = (keys ?? []).filter((k) => !devices.some((d) => d.device.device_key === k));
    if (missing.length) throw new FacilityConfigError(`${field}.segment.device_keys: dataset ${datasetId} has no samples of ${missing.join(', ')}`);
    const series = devices.map((d) => readSamples(db, d.stream, start, end)).filter((rows) => rows.length > 0);
    return summedPower(
      series,
      `${field}.segment`,
      `dataset ${datasetId} between ${start} and ${end}`,
    );
  });
}
