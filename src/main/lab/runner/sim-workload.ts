// A simulated workload process (`caplab sim-workload`, hidden): a real child process that the runner starts in a
// pty like any workload. It registers its load in the simulated GPUs' state directory (so the simulated backend
// reports loaded power), then prints CapLab's line protocol (docs/line-protocol.md) mixed with ordinary log
// lines, one step at a time, paced by the simulated clock. Throughput follows the limit held in the state file,
// re-read every step, so a cap changed mid-run takes effect as on a real GPU.
import { spawn } from 'node:child_process';
import type { ParseArgsConfig } from 'node:util';
import { formatProtocolEvent, type ProtocolEvent } from '../../../shared/protocol';
import { findPreset, type GpuPreset } from '../../../core/sim/presets';
import { nodePart } from '../../../core/sim/variation';
import { findWorkload, memoryNeededMb, resolveParams, WORKLOAD_IDS, type ResolvedParams, type SimParams, type WorkloadModel } from '../../../core/sim/workloads';
import { operatingPoint, warmupEndS } from '../../../core/sim/model';
import { advanceTempC, steadyTempC } from '../../../core/sim/thermal';
import { gaussian } from '../../../core/sim/random';
import { formatStepLog, logEvery, simulatedLoss } from '../../../core/sim/logs';
import { SimClock } from '../gpu/sim-clock';
import { loadOrInitState, readState, removeActivity, writeActivity } from '../gpu/sim-state';

export const SIM_WORKLOAD_OPTIONS = {
  workload: { type: 'string' },
  devices: { type: 'string' },
  'state-dir': { type: 'string' },
  clock: { type: 'string' },
  param: { type: 'string', multiple: true },
  'max-steps': { type: 'string' },
  seed: { type: 'string' },
  'fail-after-s': { type: 'string' },
  'hang-after-s': { type: 'string' },
  garbage: { type: 'boolean' },
  daemon: { type: 'boolean' },
  'switch-after-s': { type: 'string' },
  'switch-workload': { type: 'string' },
} as const satisfies NonNullable<ParseArgsConfig['options']>;

export const SIM_WORKLOAD_USAGE =
  'sim-workload --workload ID --devices 0,1 --state-dir DIR --clock ORIGIN:SPEEDUP [--param key=value ...] ' +
  '[--max-steps N] [--seed N] [--fail-after-s S] [--hang-after-s S] [--garbage] [--daemon] [--switch-after-s S --switch-workload ID]';

type OptionValues = Record<string, string | boolean | (string | boolean)[] | undefined>;

interface SimDevice {
  index: number;
  preset: GpuPreset;
}

interface SimWorkloadConfig {
  model: WorkloadModel;
  rawParams: SimParams;
  params: ResolvedParams;
  devices: SimDevice[];
  stateDir: string;
  clock: SimClock;
  maxSteps: number | null;
  seed: number;
  failAfterS: number | null;
  hangAfterS: number | null;
  garbage: boolean;
  /** Leave a daemon behind (fork -> setsid -> fork, re-parented away from the run), as some servers do. */
  daemon: boolean;
  /** A phase change (a new training stage, an evaluation pass): after this many simulated seconds the job becomes this workload. */
  switchTo: { after_s: number; model: WorkloadModel; params: ResolvedParams } | null;
}

class ConfigError extends Error {}

const SIGNAL_CODES = { SIGHUP: 129, SIGINT: 130, SIGTERM: 143 } as const;

/** Lines that break the protocol in each way a real workload might (--garbage), cycled one per step. */
const GARBAGE_LINES = [
  '@caplab {"ev":"step","t":',
  '@caplab {"ev":"teleport","t":1}',
  '@caplab {"ev":"step","t":"soon","n":-1,"units":-5,"dt":0}',
  '\u001b[31mWARN\u001b[0m \u0007 stray bytes \ufffd\ufffd @caplab',
];

function str(values: OptionValues, key: string): string | undefined {
  const v = values[key];
  return typeof v === 'string' ? v : undefined;
}

function num(values: OptionValues, key: string, check: (n: number) => boolean, what: string): number | null {
  const v = str(values, key);
  if (v === undefined) return null;
  const n = Number(v);
  if (!Number.isFinite(n) || !check(n)) throw new ConfigError(`--${key} must be ${what}, got "${v}"`);
  return n;
}

function parseParam(text: string): [string, string | number | boolean] {
  const eq = text.indexOf('=');
  if (eq <= 0) throw new ConfigError(`--param wants key=value, got "${text}"`);
  const key = text.slice(0, eq);
  const raw = text.slice(eq + 1);
  if (raw === 'true' || raw === 'false') return [key, raw === 'true'];
  return [key, raw.trim() !== '' && Number.isFinite(Number(raw)) ? Number(raw) : raw];
}

function configFrom(values: OptionValues, env: NodeJS.ProcessEnv): SimWorkloadConfig {
  const id = str(values, 'workload');
  if (!id) throw new ConfigError(`--workload is required (one of ${WORKLOAD_IDS.join(', ')})`);
  const model = findWorkload(id);
  if (!model) throw new ConfigError(`unknown simulated workload "${id}"; known: ${WORKLOAD_IDS.join(', ')}`);
  const stateDir = str(values, 'state-dir');
  if (!stateDir) throw new ConfigError('--state-dir is required');
  const clockText = str(values, 'clock');
  let clock: SimClock;
  try {
    clock = clockText ? SimClock.parse(clockText) : (SimClock.fromEnv(env) ?? SimClock.realTime());
  } catch (e) {
    throw new ConfigError((e as Error).message);
  }
  const paramList = Array.isArray(values.param) ? values.param.filter((p): p is string => typeof p === 'string') : [];
  const rawParams: SimParams = Object.fromEntries(paramList.map(parseParam));
  let params: ResolvedParams;
  let state;
  try {
    params = resolveParams(model, rawParams);
    state = loadOrInitState(stateDir, undefined, env);
  } catch (e) {
    throw new ConfigError((e as Error).message);
  }
  const deviceText = str(values, 'devices') ?? '0';
  const indexes = deviceText.split(',').map((s) => Number(s.trim()));
  if (indexes.some((i) => !Number.isInteger(i) || i < 0) || new Set(indexes).size !== indexes.length) {
    throw new ConfigError(`--devices wants distinct device indexes like 0,1, got "${deviceText}"`);
  }
  const devices = indexes.map((index) => {
    const entry = state.devices.find((d) => d.index === index);
    const preset = entry && findPreset(entry.preset);
    if (!preset) throw new ConfigError(`no simulated device ${index} (have ${state.devices.length} in ${stateDir})`);
    // The same part as the simulated backend sees on this node (CAPLAB_SIM_NODE, set by cluster jobs).
    return { index, preset: nodePart(preset, env.CAPLAB_SIM_NODE || undefined, index) };
  });
  return {
    model,
    rawParams,
    params,
    devices,
    stateDir,
    clock,
    maxSteps: num(values, 'max-steps', (n) => Number.isInteger(n) && n > 0, 'a positive integer'),
    seed: num(values, 'seed', Number.isInteger, 'an integer') ?? 1,
    failAfterS: num(values, 'fail-after-s', (n) => n >= 0, 'a number of seconds >= 0'),
    hangAfterS: num(values, 'hang-after-s', (n) => n >= 0, 'a number of seconds >= 0'),
    garbage: values.garbage === true,
    daemon: values.daemon === true,
    switchTo: switchOf(values, rawParams),
  };
}

function switchOf(values: OptionValues, rawParams: SimParams): SimWorkloadConfig['switchTo'] {
  const after = num(values, 'switch-after-s', (n) => n >= 0, 'a number of seconds >= 0');
  const id = str(values, 'switch-workload');
  if (after === null && id === undefined) return null;
  if (after === null || id === undefined) throw new ConfigError('--switch-after-s and --switch-workload go together');
  const model = findWorkload(id);
  if (!model) throw new ConfigError(`unknown simulated workload "${id}" for --switch-workload; known: ${WORKLOAD_IDS.join(', ')}`);
  try {
    return { after_s: after, model, params: resolveParams(model, rawParams) };
  } catch (e) {
    throw new ConfigError((e as Error).message);
  }
}

/** Resolves when simulated time t is reached on the clock, or at once when aborted. */
function sleepUntil(clock: SimClock, t: number, signal: AbortSignal): Promise<void> {
  const ms = (clock.realAt(t) - Date.now() / 1000) * 1000;
  if (ms <= 0 || signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, Math.min(ms, 2 ** 31 - 1));
    signal.addEventListener('abort', done, { once: true });
  });
}

/** A hung workload: prints nothing more and waits to be killed. The interval keeps the process alive. */
function waitForAbort(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const keepAlive = setInterval(() => {}, 60_000);
    signal.addEventListener('abort', () => {
      clearInterval(keepAlive);
      resolve();
    }, { once: true });
  });
}

/** The current limit of each device from the state file; a failed read keeps the previous value. */
function readLimits(cfg: SimWorkloadConfig, previous: number[]): number[] {
  let state;
  try {
    state = readState(cfg.stateDir);
  } catch {
    return previous;
  }
  return cfg.devices.map((d, i) => state?.devices.find((e) => e.index === d.index)?.limit_w ?? previous[i] ?? d.preset.limits.default_w);
}

/** Runs the simulated workload described by parsed option values; returns the exit code. */
export async function runSimWorkloadWith(values: OptionValues, out: NodeJS.WritableStream, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  // The reader went away (EPIPE): stop quietly, like a workload whose terminal closed.
  let outputLost = false;
  const line = (text: string): void => {
    if (!outputLost) out.write(text + '\n');
  };
  const emit = (event: ProtocolEvent): void => line(formatProtocolEvent(event));

  let cfg: SimWorkloadConfig;
  try {
    cfg = configFrom(values, env);
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    emit({ ev: 'error', t: Date.now() / 1000, message: `sim-workload: ${e.message}`, kind: 'config' });
    return 2;
  }
  const { model, devices, clock } = cfg;

  const aborter = new AbortController();
  let exitSignal = 0;
  const onSignal = (sig: keyof typeof SIGNAL_CODES): void => {
    exitSignal = SIGNAL_CODES[sig];
    aborter.abort();
  };
  const onOutputError = (): void => {
    outputLost = true;
    aborter.abort();
  };
  out.on('error', onOutputError);
  const handlers = Object.keys(SIGNAL_CODES).map((sig) => {
    const handler = (): void => onSignal(sig as keyof typeof SIGNAL_CODES);
    process.on(sig, handler);
    return [sig, handler] as const;
  });

  const started = clock.now();
  const activityPath = writeActivity(cfg.stateDir, {
    pid: process.pid,
    devices: devices.map((d) => d.index),
    workload: model.id,
    params: cfg.rawParams,
    started_t: started,
    clock: clock.toString(),
  });
  // 'exit' also covers an exit through an uncaught error; only SIGKILL leaves the file behind, and readers
  // skip files of dead processes.
  const cleanup = (): void => removeActivity(activityPath);
  process.once('exit', cleanup);
  try {
    const code = await runSteps(cfg, started, aborter.signal, line, emit);
    // Killed: report as a shell does (128 + signal number), whatever the loop was doing.
    return exitSignal || (outputLost ? 1 : code);
  } finally {
    out.removeListener('error', onOutputError);
    cleanup();
    process.removeListener('exit', cleanup);
    for (const [sig, handler] of handlers) process.removeListener(sig, handler);
  }
}

/** A double-forked sleeper: the shell is its own session leader and exits at once, leaving `sleep` orphaned. */
function startDaemon(): void {
  spawn('/bin/sh', ['-c', 'sleep 600 >/dev/null 2>&1 & exit 0'], { detached: true, stdio: 'ignore' }).unref();
}

async function runSteps(
  cfg: SimWorkloadConfig,
  started: number,
  signal: AbortSignal,
  line: (text: string) => void,
  emit: (event: ProtocolEvent) => void,
): Promise<number> {
  const { devices, clock, seed } = cfg;
  let { model, params } = cfg;
  const failAt = cfg.failAfterS === null ? Infinity : started + cfg.failAfterS;
  const hangAt = cfg.hangAfterS === null ? Infinity : started + cfg.hangAfterS;
  const fail = (t: number): number => {
    line('Traceback (most recent call last):');
    line(`  File "train.py", line 212, in <module>`);
    line(`RuntimeError: simulated failure after ${cfg.failAfterS} s (--fail-after-s)`);
    emit({ ev: 'error', t, message: `simulated failure after ${cfg.failAfterS} s`, kind: 'crash' });
    return 1;
  };
  const interruptAt = (): number => Math.min(failAt, hangAt);
  /** Handles a planned failure or hang once simulated time reaches it; null to go on. */
  const interrupt = async (t: number): Promise<number | null> => {
    if (t >= failAt && failAt <= hangAt) return fail(t);
    if (t >= hangAt) {
      await waitForAbort(signal);
      return 0;
    }
    return null;
  };

  if (cfg.daemon) startDaemon();
  emit({ ev: 'start', t: started, workload: model.id, units: model.units, gpus: devices.length, batch_size: params.batch_size });
  line(`caplab-sim: ${model.label} on ${devices.map((d) => `sim:${d.index} ${d.preset.name}`).join(', ')}`);
  line('caplab-sim: simulated workload: throughput and power come from a model, not from hardware');
  line(`Building model ${model.id} (batch size ${params.batch_size} per GPU, ${devices.length} GPU${devices.length > 1 ? 's' : ''})...`);

  const initEnd = started + model.init_s;
  await sleepUntil(clock, Math.min(initEnd, interruptAt()), signal);
  if (signal.aborted) return 0;
  const early = await interrupt(clock.now());
  if (early !== null) return early;

  const needed = memoryNeededMb(model, params);
  const short = devices.find((d) => d.preset.memory_mb < needed);
  if (short) {
    const api = short.preset.imitates === 'AMD' ? 'HIP' : 'CUDA';
    line(`torch.OutOfMemoryError: ${api} out of memory. Simulated ${model.id} needs ${needed} MiB per GPU; sim:${short.index} has ${short.preset.memory_mb} MiB.`);
    emit({ ev: 'error', t: initEnd, message: `out of memory on sim:${short.index}: needs ${needed} MiB, has ${short.preset.memory_mb} MiB (try a smaller batch_size)`, kind: 'oom' });
    return 1;
  }

  emit({ ev: 'phase', t: initEnd, name: 'warmup' });
  const measureAt = started + warmupEndS(model);
  let measuring = false;
  let temps = devices.map((d) => steadyTempC(d.preset, d.preset.idle_w));
  let limits = devices.map((d) => d.preset.limits.default_w);
  let t = initEnd;
  let totalUnits = 0;
  let logUnits = 0;
  let logSeconds = 0;
  const every = logEvery(model);

  for (let n = 1; cfg.maxSteps === null || n <= cfg.maxSteps; n++) {
    if (cfg.switchTo && model !== cfg.switchTo.model && t - started >= cfg.switchTo.after_s) {
      // The backend draws the new stage's power from the activity file; the start time stays, so no new warm-up ramp.
      ({ model, params } = cfg.switchTo);
      writeActivity(cfg.stateDir, { pid: process.pid, devices: devices.map((d) => d.index), workload: model.id, params: cfg.rawParams, started_t: started, clock: clock.toString() });
      line(`caplab-sim: phase change: the job is now ${model.label}`);
    }
    limits = readLimits(cfg, limits);
    // Data-parallel steps are synchronous: the slowest GPU sets the pace.
    const points = devices.map((d, i) => operatingPoint({ preset: d.preset, load: { workload: model, params, elapsed_s: t - started }, cap_w: limits[i]!, temp_c: temps[i]! }));
    const base = Math.max(...points.map((p) => p.step_s ?? Infinity));
    const dt = base * Math.max(0.5, 1 + 0.01 * gaussian(seed, n));
    const unitsPerStep = points[0]!.units_per_step * devices.length;
    const end = t + dt;
    if (end >= interruptAt()) {
      await sleepUntil(clock, interruptAt(), signal);
      if (signal.aborted) return 0;
      return (await interrupt(interruptAt())) ?? 0;
    }
    await sleepUntil(clock, end, signal);
    if (signal.aborted) return 0;
    temps = temps.map((temp, i) => advanceTempC(devices[i]!.preset, temp, points[i]!.power_w, dt));
    emit({ ev: 'step', t: end, n, units: unitsPerStep, dt });
    totalUnits += unitsPerStep;
    logUnits += unitsPerStep;
    logSeconds += dt;
    if (!measuring && end >= measureAt) {
      measuring = true;
      emit({ ev: 'phase', t: end, name: 'measure' });
    }
    if (cfg.garbage) line(GARBAGE_LINES[n % GARBAGE_LINES.length]!);
    if (n % every === 0) {
      const loss = simulatedLoss(n, gaussian(seed, n, 7));
      line(formatStepLog(model, { n, units: logUnits, seconds: logSeconds, batch_size: params.batch_size, loss }));
      if (model.log_style === 'serving') emit({ ev: 'metric', t: end, name: 'itl_ms', value: (dt / params.item_units) * 1000 });
      else emit({ ev: 'metric', t: end, name: 'loss', value: loss });
      logUnits = 0;
      logSeconds = 0;
    }
    t = end;
  }
  emit({ ev: 'phase', t, name: 'done' });
  const seconds = t - initEnd;
  emit({ ev: 'summary', t, units: totalUnits, seconds, rate: totalUnits / seconds });
  return 0;
}
