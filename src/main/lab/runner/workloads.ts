import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LineCounter, parseDocument } from 'yaml';
import { adapterNames, compileUserPattern } from '../../../core/adapters';
import {
  BUILTIN_PLACEHOLDERS,
  WorkloadDefinition,
  type ArgItem,
  type GpuVendor,
  type ParamSpec,
  type ParamValue,
  type ParamValues,
  type WorkloadRuntime,
  type WorkloadSummary,
} from '../../../shared/workload';
import { dataDir } from '../files/paths';
import { didYouMean } from '../../../shared/suggest';
import type { PlanIssue } from '../../../shared/api/plans';

/**
 * Workload definitions: the built-ins in resources/workloads/*.yaml plus the user's folder
 * (CAPLAB_WORKLOADS_DIR, else <data dir>/workloads). `buildCommand` turns a definition and parameters into an
 * argv array and environment for one run, natively or in a container. Nothing here builds a shell string.
 */

export interface LoadedWorkload {
  def: WorkloadDefinition;
  file: string;
  builtin: boolean;
}

/** A definition file that could not be loaded; `messages` name the field (and line where known). */
export class WorkloadDefinitionError extends Error {
  constructor(
    readonly file: string,
    readonly messages: string[],
  ) {
    super(messages.map((m) => `${file}${m.startsWith(':') ? '' : ': '}${m}`).join('\n'));
    this.name = 'WorkloadDefinitionError';
  }
}

/** Parameters that do not fit a definition, or options that do not fit the runtime; one message per problem. */
export class WorkloadParamError extends Error {
  constructor(
    readonly workload: string,
    /** Each problem at its field (`params.batch_size`; '' for the workload as a whole), so a plan check places it. */
    readonly issues: PlanIssue[],
  ) {
    super(`workload ${workload}: ${issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join('; ')}`);
    this.name = 'WorkloadParamError';
  }
}

export interface WorkloadCatalog {
  definitions: LoadedWorkload[];
  /** Files that failed to load; the other definitions are still usable. */
  errors: WorkloadDefinitionError[];
  get(id: string): LoadedWorkload | undefined;
  /** Throws WorkloadParamError listing the known ids when `id` is unknown. */
  require(id: string): LoadedWorkload;
}

type Env = NodeJS.ProcessEnv;

/** Folder holding `workloads/` (definitions, python/, containers/): CAPLAB_RESOURCES, else found upward from here. */
export function resourcesDir(env: Env = process.env): string {
  if (env.CAPLAB_RESOURCES) return resolve(env.CAPLAB_RESOURCES);
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 8; i++) {
    const cand = join(dir, 'resources');
    if (existsSync(join(cand, 'workloads'))) return cand;
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  throw new Error('cannot find the resources folder (resources/workloads); set CAPLAB_RESOURCES');
}

/** The user's own definitions: CAPLAB_WORKLOADS_DIR, else <data dir>/workloads. */
export function userWorkloadsDir(env: Env = process.env): string {
  return env.CAPLAB_WORKLOADS_DIR ? resolve(env.CAPLAB_WORKLOADS_DIR) : join(dataDir(env), 'workloads');
}

// ---------------------------------------------------------------------------------------------------------------
// Parsing and validation

const PLACEHOLDER = /\{([a-z][a-z0-9_]*)\}/g;
const MULTI = new Set(['python', 'args']);

function placeholders(s: string): string[] {
  return [...s.replace(/\{\{|\}\}/g, '').matchAll(PLACEHOLDER)].map((m) => m[1]!);
}

function parseWhen(when: string): { name: string; negate: boolean; op: '=' | '!=' | null; value: string | null } {
  const negate = when.startsWith('!');
  const body = negate ? when.slice(1) : when;
  const m = /^([a-z][a-z0-9_]*)(?:(!=|=)(.*))?$/.exec(body)!;
  return { name: m[1]!, negate, op: (m[2] as '=' | '!=' | undefined) ?? null, value: m[3] ?? null };
}

function paramProblems(name: string, spec: ParamSpec): string[] {
  const p: string[] = [];
  const at = `params.${name}`;
  if ((spec.type === 'int' || spec.type === 'number') && spec.min !== undefined && spec.max !== undefined && spec.min > spec.max) p.push(`${at}: min ${spec.min} is above max ${spec.max}`);
  if (spec.default !== undefined) {
    const r = checkValue(spec, spec.default);
    if (!r.ok) p.push(`${at}.default: ${r.error}`);
  }
  if (spec.type === 'string' && spec.pattern !== undefined) {
    try {
      new RegExp(spec.pattern);
    } catch (e) {
      p.push(`${at}.pattern: invalid regular expression (${(e as Error).message})`);
    }
  }
  return p;
}

/** Semantic checks the schema cannot express: placeholders and conditions name known parameters, defaults fit. */
function semanticProblems(def: WorkloadDefinition): string[] {
  const problems: string[] = [];
  const names = new Set(Object.keys(def.params));
  for (const b of BUILTIN_PLACEHOLDERS) if (names.has(b)) problems.push(`params.${b}: "${b}" is a built-in placeholder; pick another name`);
  for (const [n, spec] of Object.entries(def.params)) problems.push(...paramProblems(n, spec));
  const known = new Set<string>([...names, ...BUILTIN_PLACEHOLDERS]);
  const multi = new Set([...MULTI, ...Object.entries(def.params).filter(([, s]) => s.type === 'argv').map(([n]) => n)]);
  const checkItems = (items: ArgItem[] | undefined, where: string, allowArgs: boolean) => {
    (items ?? []).forEach((item, i) => {
      const strings = typeof item === 'string' ? [item] : item.args;
      if (typeof item !== 'string') {
        const w = parseWhen(item.when);
        if (!names.has(w.name)) problems.push(`${where}[${i}].when: unknown parameter "${w.name}"`);
      }
      for (const s of strings) {
        for (const ph of placeholders(s)) {
          if (!known.has(ph)) problems.push(`${where}[${i}]: unknown placeholder {${ph}}`);
          else if (multi.has(ph) && s !== `{${ph}}`) problems.push(`${where}[${i}]: {${ph}} expands to several arguments and must stand alone`);
          else if (ph === 'args' && !allowArgs) problems.push(`${where}[${i}]: {args} cannot be used inside args`);
        }
      }
    });
  };
  checkItems(def.args, 'args', false);
  checkItems(def.native?.argv, 'native.argv', true);
  checkItems(def.container?.command, 'container.command', true);
  for (const [where, img] of [['container.image', def.container?.image], ['container.apptainer_image', def.container?.apptainer_image]] as const) {
    const list = img === undefined ? [] : typeof img === 'string' ? [img] : Object.values(img);
    for (const s of list) for (const ph of placeholders(s ?? '')) if (!names.has(ph)) problems.push(`${where}: unknown placeholder {${ph}}`);
  }
  const reader = def.throughput;
  if (!['protocol', 'auto', ...adapterNames].includes(reader.adapter) && !(def.kind === 'command' && names.has('adapter'))) {
    problems.push(`throughput.adapter: unknown adapter "${reader.adapter}"; known: protocol, auto, ${adapterNames.filter((n) => n !== 'protocol').join(', ')}`);
  }
  if (reader.adapter === 'regex' && !reader.pattern) problems.push('throughput.pattern: the regex adapter needs a pattern');
  if (reader.pattern) {
    try {
      compileUserPattern(reader.pattern);
    } catch (e) {
      problems.push(`throughput.pattern: ${(e as Error).message.replace(/^<pattern>: /, '')}`);
    }
  }
  if (reader.file) for (const ph of placeholders(reader.file)) if (!known.has(ph)) problems.push(`throughput.file: unknown placeholder {${ph}}`);
  if (def.multi_gpu.launcher === 'none' && def.multi_gpu.max_gpus > 1) problems.push('multi_gpu.max_gpus: more than 1 needs a launcher (torchrun or single-process)');
  if (def.kind === 'command' && ![...names].some((n) => def.params[n]!.type === 'argv')) problems.push('params: a command workload needs a parameter of type argv (the command line)');
  return problems;
}

/** Parses and validates one definition file's text. Errors name the field and, where known, the line. */
export function parseWorkloadDefinition(text: string, file: string): WorkloadDefinition {
  const lc = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lc, prettyErrors: true, uniqueKeys: true });
  if (doc.errors.length) {
    throw new WorkloadDefinitionError(
      file,
      doc.errors.map((e) => `:${e.linePos?.[0]?.line ?? 1}: YAML: ${e.message.split('\n')[0]}`),
    );
  }
  const raw: unknown = doc.toJS();
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw new WorkloadDefinitionError(file, ['the file must hold one mapping (id, title, units, ...)']);
  const lineOf = (path: PropertyKey[]): number | null => {
    for (let n = path.length; n >= 0; n--) {
      const node = doc.getIn(path.slice(0, n) as (string | number)[], true) as { range?: [number, number, number] } | undefined;
      if (node && typeof node === 'object' && node.range) return lc.linePos(node.range[0]).line;
    }
    return null;
  };
  const parsed = WorkloadDefinition.safeParse(raw);
  if (!parsed.success) {
    throw new WorkloadDefinitionError(
      file,
      parsed.error.issues.map((i) => {
        const line = lineOf(i.path);
        const where = i.path.length ? i.path.join('.') : 'definition';
        return `${line ? `:${line}: ` : ''}${where}: ${i.message}`;
      }),
    );
  }
  const problems = semanticProblems(parsed.data);
  if (problems.length) throw new WorkloadDefinitionError(file, problems);
  return parsed.data;
}

/** Parsed definitions by file, reused while the file is unchanged: the designer validates a plan as the user types. */
const parsedCache = new Map<string, { mtimeMs: number; size: number; def: WorkloadDefinition }>();

function parseCached(file: string, st: { mtimeMs: number; size: number }): WorkloadDefinition {
  const hit = parsedCache.get(file);
  if (hit && hit.mtimeMs === st.mtimeMs && hit.size === st.size) return hit.def;
  const def = parseWorkloadDefinition(readFileSync(file, 'utf8'), file);
  parsedCache.set(file, { mtimeMs: st.mtimeMs, size: st.size, def });
  return def;
}

function readDefinitions(dir: string, builtin: boolean, out: LoadedWorkload[], errors: WorkloadDefinitionError[]): void {
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => /\.ya?ml$/i.test(n)).sort();
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
    errors.push(new WorkloadDefinitionError(dir, [`cannot read the folder: ${(e as Error).message}`]));
    return;
  }
  for (const n of names) {
    const file = join(dir, n);
    try {
      const st = statSync(file);
      if (!st.isFile()) continue;
      const def = parseCached(file, st);
      const clash = out.find((w) => w.def.id === def.id);
      if (clash) throw new WorkloadDefinitionError(file, [`id: "${def.id}" is already defined in ${clash.file}`]);
      out.push({ def, file, builtin });
    } catch (e) {
      errors.push(e instanceof WorkloadDefinitionError ? e : new WorkloadDefinitionError(file, [(e as Error).message]));
    }
  }
}

export interface LoadOptions {
  /** Folder holding workloads/; default resourcesDir(env). */
  resourcesDir?: string;
  /** The user's definitions folder; default userWorkloadsDir(env); null skips it. */
  userDir?: string | null;
  env?: Env;
}

/** Loads built-in and user definitions. Bad files end up in `errors`; the rest load. */
export function loadWorkloads(opts: LoadOptions = {}): WorkloadCatalog {
  const env = opts.env ?? process.env;
  const definitions: LoadedWorkload[] = [];
  const errors: WorkloadDefinitionError[] = [];
  readDefinitions(join(opts.resourcesDir ?? resourcesDir(env), 'workloads'), true, definitions, errors);
  const user = opts.userDir === undefined ? userWorkloadsDir(env) : opts.userDir;
  if (user) readDefinitions(user, false, definitions, errors);
  return {
    definitions,
    errors,
    get: (id) => definitions.find((w) => w.def.id === id),
    require(id) {
      const w = definitions.find((d) => d.def.id === id);
      if (!w) throw new WorkloadParamError(id, [{ path: '', message: `unknown workload${didYouMean(id, definitions.map((d) => d.def.id))}; known: ${definitions.map((d) => d.def.id).join(', ') || '(none)'}` }]);
      return w;
    },
  };
}

export function summarizeWorkload(w: LoadedWorkload): WorkloadSummary {
  const runtimes: WorkloadRuntime[] = [];
  if (w.def.native) runtimes.push('native');
  if (w.def.container) runtimes.push('docker', 'podman', 'apptainer');
  return {
    id: w.def.id,
    title: w.def.title,
    units: w.def.units,
    kind: w.def.kind,
    description: w.def.description,
    builtin: w.builtin,
    file: w.file,
    runtimes,
    max_gpus: w.def.multi_gpu.max_gpus,
    adapter: w.def.throughput.adapter,
    params: w.def.params,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Parameters

export type ResolvedValue = string | number | boolean | string[];
export type ResolvedParams = Record<string, ResolvedValue | undefined>;

type Checked = { ok: true; value: ResolvedValue } | { ok: false; error: string };

/** A value checked against its spec and converted (numeric strings, "true"/"false", a JSON array for argv). */
function checkValue(spec: ParamSpec, v: ParamValue): Checked {
  const range = (lo?: number, hi?: number) => (lo !== undefined && hi !== undefined ? ` between ${lo} and ${hi}` : lo !== undefined ? ` >= ${lo}` : hi !== undefined ? ` <= ${hi}` : '');
  const shown = (x: unknown) => JSON.stringify(x)?.slice(0, 60);
  const bad = (error: string): Checked => ({ ok: false, error });
  const good = (value: ResolvedValue): Checked => ({ ok: true, value });
  switch (spec.type) {
    case 'int':
    case 'number': {
      const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
      const isInt = spec.type === 'int';
      if (!Number.isFinite(n) || (isInt && !Number.isInteger(n)) || (spec.min !== undefined && n < spec.min) || (spec.max !== undefined && n > spec.max)) {
        return bad(`must be ${isInt ? 'an integer' : 'a number'}${range(spec.min, spec.max)}, got ${shown(v)}`);
      }
      return good(n);
    }
    case 'bool':
      if (typeof v === 'boolean') return good(v);
      if (v === 'true' || v === 'false') return good(v === 'true');
      return bad(`must be true or false, got ${shown(v)}`);
    case 'enum':
      if (typeof v === 'string' && spec.values.includes(v)) return good(v);
      return bad(`must be one of ${spec.values.join(', ')}, got ${shown(v)}`);
    case 'string': {
      if (typeof v !== 'string' && typeof v !== 'number') return bad(`must be text, got ${shown(v)}`);
      const s = String(v);
      if (s.length > spec.max_length) return bad(`must be at most ${spec.max_length} characters`);
      if (s.startsWith('-')) return bad(`must not start with "-", got ${shown(s)}`);
      if (/[\u0000-\u001f\u007f]/.test(s)) return bad('must not contain control characters');
      if (spec.pattern !== undefined && !new RegExp(spec.pattern).test(s)) return bad(`must match ${spec.pattern}, got ${shown(s)}`);
      return good(s);
    }
    case 'argv': {
      let list: unknown = v;
      if (typeof v === 'string') {
        try {
          list = JSON.parse(v);
        } catch {
          return bad('must be a list of strings (or a JSON array of strings), not a shell string');
        }
      }
      if (!Array.isArray(list) || !list.length || !list.every((x) => typeof x === 'string')) return bad('must be a non-empty list of strings');
      if ((list as string[]).some((x) => x.includes('\u0000'))) return bad('must not contain NUL characters');
      return good(list as string[]);
    }
  }
}

/** Defaults filled in, values converted and checked against the definition. Throws WorkloadParamError listing every problem. */
export function resolveParams(def: WorkloadDefinition, given: ParamValues = {}): ResolvedParams {
  const problems: PlanIssue[] = [];
  const out: ResolvedParams = {};
  for (const k of Object.keys(given)) {
    if (!(k in def.params)) problems.push({ path: `params.${k}`, message: `unknown parameter; known: ${Object.keys(def.params).join(', ') || '(none)'}` });
  }
  for (const [name, spec] of Object.entries(def.params)) {
    const v = given[name] ?? spec.default;
    if (v === undefined) continue;
    const r = checkValue(spec, v);
    if (r.ok) out[name] = r.value;
    else problems.push({ path: `params.${name}`, message: r.error });
  }
  if (problems.length) throw new WorkloadParamError(def.id, problems);
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// Command lines

export interface BuildOptions {
  runtime: WorkloadRuntime;
  /** GPU indexes (as the GPU backend numbers them) the run uses: one process group over all of them. */
  devices: number[];
  vendor?: GpuVendor;
  /** docker/podman: the container's name (see containerRunName); required there. */
  containerName?: string;
  /** docker/podman: --cidfile path; must not exist yet. */
  cidfile?: string;
  /** The run's working folder (for {run_dir}; bind-mounted at /caplab/run in containers). */
  runDir?: string;
  /** Python interpreter for native runs; default CAPLAB_PYTHON or python3. */
  python?: string;
  /** The container runtime's executable; default CAPLAB_DOCKER / CAPLAB_PODMAN / CAPLAB_APPTAINER or its name. */
  runtimeBinary?: string;
  /** Folder holding workloads/ natively; default resourcesDir(env). */
  resourcesDir?: string;
  /** Overrides the definition's image (docker/podman: an image reference; apptainer: a .sif path or URI). */
  image?: string;
  env?: Env;
}

export interface BuiltCommand {
  /** Program and arguments, ready for spawn/pty: never passed through a shell. */
  argv: string[];
  /** Variables to add to the runner's environment for this process (not the whole environment). */
  env: Record<string, string>;
  params: ResolvedParams;
  units: string;
  gpus: number;
  /** How to read throughput: `protocol` from the output, or an adapter (optionally over a file). */
  reader: { adapter: string; file: string | null; pattern: string | null };
  container: { runtime: 'docker' | 'podman' | 'apptainer'; name: string | null; cidfile: string | null } | null;
  /** What the run record asks for its versions: the native run's Python (null when none), the container's image. */
  software: { python: string | null } | { runtime: 'docker' | 'podman' | 'apptainer'; binary: string; image: string };
}

/** Where the built-in workloads live inside the container images (see resources/workloads/containers). */
const CONTAINER_RESOURCES = '/opt/caplab/resources';
const CONTAINER_RUN_DIR = '/caplab/run';

export function runtimeBinary(runtime: 'docker' | 'podman' | 'apptainer', env: Env = process.env): string {
  const v = { docker: env.CAPLAB_DOCKER, podman: env.CAPLAB_PODMAN, apptainer: env.CAPLAB_APPTAINER }[runtime];
  return v || runtime;
}

function whenHolds(when: string, params: ResolvedParams): boolean {
  const w = parseWhen(when);
  const v = params[w.name];
  let r: boolean;
  if (w.op === null) r = v !== undefined && v !== false && v !== '' && v !== 0 && !(Array.isArray(v) && !v.length);
  else {
    const s = v === undefined ? '' : Array.isArray(v) ? v.join(' ') : String(v);
    r = w.op === '=' ? s === w.value : s !== w.value;
  }
  return w.negate ? !r : r;
}

interface Ctx {
  id: string;
  params: ResolvedParams;
  scalars: Record<string, string>;
  python: string[];
  args: ArgItem[];
}

function substitute(s: string, ctx: Ctx): string {
  return s.replace(/\{\{|\}\}|\{([a-z][a-z0-9_]*)\}/g, (m, name: string | undefined) => {
    if (m === '{{') return '{';
    if (m === '}}') return '}';
    if (name! in ctx.scalars) return ctx.scalars[name!]!;
    const v = ctx.params[name!];
    if (v === undefined) throw new WorkloadParamError(ctx.id, [{ path: `params.${name}`, message: 'required here (it has no default)' }]);
    if (Array.isArray(v)) throw new WorkloadParamError(ctx.id, [{ path: `params.${name}`, message: 'a list cannot be part of a larger argument' }]);
    return typeof v === 'boolean' ? (v ? 'true' : 'false') : String(v);
  });
}

function expand(items: ArgItem[], ctx: Ctx, allowArgs = true): string[] {
  const out: string[] = [];
  for (const item of items) {
    const strings = typeof item === 'string' ? [item] : whenHolds(item.when, ctx.params) ? item.args : [];
    for (const s of strings) {
      const whole = /^\{([a-z][a-z0-9_]*)\}$/.exec(s)?.[1];
      if (whole === 'python') out.push(...ctx.python);
      else if (whole === 'args' && allowArgs) out.push(...expand(ctx.args, ctx, false));
      else if (whole !== undefined && Array.isArray(ctx.params[whole])) out.push(...(ctx.params[whole] as string[]));
      else out.push(substitute(s, ctx));
    }
  }
  return out;
}

/** Apptainer images: a URI (docker://, oras://, ...) or a .sif file; relative files live in <data dir>/images. */
function apptainerImage(image: string, env: Env = process.env): string {
  return image.includes('://') || isAbsolute(image) ? image : join(dataDir(env), 'images', image);
}

function imageFor(img: string | { nvidia?: string; amd?: string }, vendor: GpuVendor, id: string, what: string): string {
  if (typeof img === 'string') return img;
  const v = vendor === 'amd' ? img.amd : img.nvidia;
  if (!v) throw new WorkloadParamError(id, [{ path: what, message: `no image for ${vendor} GPUs` }]);
  return v;
}

/**
 * The command line and environment for one run of a workload. Validates the parameters against the definition
 * and the device count against its multi-GPU support. Native runs select GPUs with CUDA_VISIBLE_DEVICES
 * (CUDA_DEVICE_ORDER=PCI_BUS_ID so indexes match NVML) or ROCR_VISIBLE_DEVICES; containers with the runtime's
 * GPU flags. Multi-GPU runs under torchrun when the definition says so.
 */
export function buildCommand(def: WorkloadDefinition, given: ParamValues, opts: BuildOptions): BuiltCommand {
  const env = opts.env ?? process.env;
  const params = resolveParams(def, given);
  const vendor = opts.vendor ?? 'nvidia';
  const devices = [...opts.devices];
  const problems: PlanIssue[] = [];
  if (new Set(devices).size !== devices.length || devices.some((d) => !Number.isInteger(d) || d < 0)) problems.push({ path: 'devices', message: `must be distinct GPU indexes, got ${JSON.stringify(devices)}` });
  const gpus = Math.max(1, devices.length);
  if (gpus > def.multi_gpu.max_gpus) problems.push({ path: 'devices', message: `this workload runs on at most ${def.multi_gpu.max_gpus} GPU(s); ${gpus} given` });
  const container = opts.runtime !== 'native';
  if (container && !def.container) problems.push({ path: 'runtime', message: `${opts.runtime} needs a container section in the definition` });
  if (!container && !def.native) problems.push({ path: 'runtime', message: 'this workload has no native command; use docker, podman or apptainer' });
  if ((opts.runtime === 'docker' || opts.runtime === 'podman') && !opts.containerName) problems.push({ path: 'containerName', message: `required for ${opts.runtime} so the run can be stopped by name` });
  if (opts.containerName && !/^[a-zA-Z0-9][a-zA-Z0-9_.-]{0,127}$/.test(opts.containerName)) problems.push({ path: 'containerName', message: `"${opts.containerName}" is not a valid container name` });
  if (problems.length) throw new WorkloadParamError(def.id, problems);

  const visible = devices.join(',');
  const python = container ? 'python3' : (opts.python ?? env.CAPLAB_PYTHON ?? 'python3');
  const launcher = gpus > 1 && def.multi_gpu.launcher === 'torchrun' ? [python, '-m', 'torch.distributed.run', '--standalone', '--nnodes=1', `--nproc-per-node=${gpus}`] : [python];
  const resources = container ? CONTAINER_RESOURCES : (opts.resourcesDir ?? resourcesDir(env));
  const runDir = opts.runDir ? (container ? CONTAINER_RUN_DIR : opts.runDir) : undefined;
  const scalars: Record<string, string> = {
    resources,
    gpus: String(gpus),
    // Inside a container the selected GPUs are renumbered from 0.
    devices: container && vendor !== 'none' ? devices.map((_, i) => i).join(',') : visible,
  };
  if (runDir !== undefined) scalars.run_dir = runDir;
  const ctx: Ctx = { id: def.id, params, scalars, python: launcher, args: def.args };
  const needRunDir = (items: ArgItem[] | undefined) => JSON.stringify(items ?? []).includes('{run_dir}');
  if (!opts.runDir && (needRunDir(def.args) || needRunDir(container ? (def.container?.command ?? def.native?.argv) : def.native?.argv) || def.throughput.file?.includes('{run_dir}'))) {
    throw new WorkloadParamError(def.id, [{ path: 'runDir', message: 'this workload writes to {run_dir}; give the run a folder' }]);
  }

  // Throughput reader (command workloads may choose theirs through parameters).
  const adapter = def.kind === 'command' && typeof params.adapter === 'string' ? params.adapter : def.throughput.adapter;
  const pattern = def.kind === 'command' && typeof params.pattern === 'string' ? params.pattern : (def.throughput.pattern ?? null);
  const fileTpl = def.kind === 'command' && typeof params.file === 'string' ? params.file : (def.throughput.file ?? null);
  if (!['protocol', 'auto', ...adapterNames].includes(adapter)) throw new WorkloadParamError(def.id, [{ path: 'params.adapter', message: `unknown adapter "${adapter}"; known: protocol, auto, ${adapterNames.filter((n) => n !== 'protocol').join(', ')}` }]);
  if (adapter === 'regex' && !pattern) throw new WorkloadParamError(def.id, [{ path: 'params.pattern', message: 'the regex adapter needs a pattern' }]);
  if (pattern) {
    try {
      compileUserPattern(pattern);
    } catch (e) {
      throw new WorkloadParamError(def.id, [{ path: 'params.pattern', message: (e as Error).message.replace(/^<pattern>: /, '') }]);
    }
  }
  // The reader runs on the host: {run_dir} is the host folder there.
  const hostCtx: Ctx = { ...ctx, scalars: { ...scalars, ...(opts.runDir ? { run_dir: opts.runDir } : {}) } };
  const reader = { adapter, file: fileTpl ? substitute(fileTpl, hostCtx) : null, pattern };
  const units = def.kind === 'command' && typeof params.units === 'string' ? params.units : def.units;

  if (!container) {
    const argv = expand(def.native!.argv, ctx);
    const runEnv: Record<string, string> = { ...def.native!.env, PYTHONUNBUFFERED: '1' };
    if (vendor === 'nvidia' && devices.length) Object.assign(runEnv, { CUDA_VISIBLE_DEVICES: visible, CUDA_DEVICE_ORDER: 'PCI_BUS_ID' });
    if (vendor === 'amd' && devices.length) runEnv.ROCR_VISIBLE_DEVICES = visible;
    return { argv, env: runEnv, params, units, gpus, reader, container: null, software: { python: pythonOf(argv[0]!, launcher[0]!, def.native!.argv) } };
  }

  const spec = def.container!;
  const runtime = opts.runtime as 'docker' | 'podman' | 'apptainer';
  const bin = opts.runtimeBinary ?? runtimeBinary(runtime, env);
  const command = expand(spec.command ?? def.native!.argv, ctx);
  const cenv: Record<string, string> = { PYTHONUNBUFFERED: '1', ...spec.env };
  const imgCtx = { ...ctx, scalars: {} };
  if (runtime === 'apptainer') {
    const image = apptainerImage(opts.image ?? (spec.apptainer_image ? substitute(imageFor(spec.apptainer_image, vendor, def.id, 'container.apptainer_image'), imgCtx) : `docker://${substitute(imageFor(spec.image, vendor, def.id, 'container.image'), imgCtx)}`), env);
    if (vendor === 'nvidia' && devices.length) cenv.CUDA_VISIBLE_DEVICES = visible;
    if (vendor === 'amd' && devices.length) cenv.ROCR_VISIBLE_DEVICES = visible;
    const argv = [bin, 'exec', '--cleanenv'];
    if (vendor === 'nvidia') argv.push('--nv');
    if (vendor === 'amd') argv.push('--rocm');
    if (opts.runDir) argv.push('--bind', `${opts.runDir}:${CONTAINER_RUN_DIR}`);
    if (spec.workdir) argv.push('--pwd', spec.workdir);
    for (const k of Object.keys(cenv).sort()) argv.push('--env', `${k}=${cenv[k]}`);
    argv.push(image, ...command);
    return { argv, env: {}, params, units, gpus, reader, container: { runtime, name: null, cidfile: null }, software: { runtime, binary: bin, image } };
  }
  const image = opts.image ?? substitute(imageFor(spec.image, vendor, def.id, 'container.image'), imgCtx);
  const argv = [bin, 'run', '--rm', '--init', '--name', opts.containerName!];
  if (opts.cidfile) argv.push('--cidfile', opts.cidfile);
  argv.push('--label', 'caplab=1');
  if (vendor === 'nvidia') {
    if (runtime === 'docker') argv.push('--gpus', !devices.length ? 'all' : devices.length === 1 ? `device=${visible}` : `"device=${visible}"`);
    else {
      if (devices.length) for (const d of devices) argv.push('--device', `nvidia.com/gpu=${d}`);
      else argv.push('--device', 'nvidia.com/gpu=all');
      argv.push('--security-opt', 'label=disable');
    }
  } else if (vendor === 'amd') {
    argv.push('--device', '/dev/kfd', '--device', '/dev/dri', '--group-add', 'video', '--security-opt', 'seccomp=unconfined');
    if (devices.length) cenv.ROCR_VISIBLE_DEVICES = visible;
  }
  argv.push('--ipc=host', '--shm-size', spec.shm_size);
  if (spec.network !== 'default') argv.push('--network', spec.network);
  if (opts.runDir) argv.push('-v', `${opts.runDir}:${CONTAINER_RUN_DIR}`);
  if (spec.workdir) argv.push('-w', spec.workdir);
  for (const k of Object.keys(cenv).sort()) argv.push('-e', `${k}=${cenv[k]}`);
  argv.push(image, ...command);
  return { argv, env: {}, params, units, gpus, reader, container: { runtime, name: opts.containerName!, cidfile: opts.cidfile ?? null }, software: { runtime, binary: bin, image } };
}

/** A native run's Python: the interpreter `{python}` expands to, else the program when it is named python*. */
function pythonOf(program: string, python: string, template: readonly (string | { args: string[] })[]): string | null {
  if (template.some((a) => (typeof a === 'string' ? [a] : a.args).some((x) => x.includes('{python}')))) return python;
  return /^python[0-9.]*$/.test(basename(program)) ? program : null;
}
