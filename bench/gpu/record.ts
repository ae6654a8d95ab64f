/**
 * Observe-only recorder for the H200 proof: CapLab's NVML backend driven by CapLab's Sampler (src/main/lab/gpu/
 * sampler.ts), writing every sample as JSONL plus a summary with its own CPU cost and timing jitter. It never sets
 * anything on the GPU.
 *
 *   node record.mjs --interval 100 --out rec100 [--index 0] [--seconds 600] [--stop-file PATH] [--slow-ms 1000] [--batch-ms 1000]
 *   Stops at --seconds, on SIGUSR2 (no wake-ups while waiting), or when --stop-file appears (checked once a second).
 *   node record.mjs --micro --out calls        per-call cost of each NVML read, and the driver's sample buffer
 *
 * Variants for finding where the CPU goes (same output format):
 *   --mode sampler  CapLab's Sampler (setTimeout, drift-corrected) calling backend.sample()   [default]
 *   --mode bare     a bare drift-corrected setTimeout loop calling sampleSync()
 *   --mode worker   a worker thread that sleeps with Atomics.wait and calls sampleSync(), posting batches
 *   --mode buffered CapLab's BufferedSampler (the sweep's default on NVML): wakes once per second and takes the power
 *                   readings the driver buffered since (nvmlDeviceGetSamples, one call), other fields once per wake
 *   --backend noop  no NVML at all: a constant sample (the floor of the timing machinery)
 *
 *   node record.mjs --dump SWEEP.db   a sweep database's first run and its sweep's samples as JSON on stdout (samples
 *                                     live in compressed blocks, which the Python side of the bench cannot read)
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import type { Sample } from '../../src/shared/device';
import type { GpuBackend } from '../../src/main/lab/gpu/backend';
import { NvmlBackend } from '../../src/main/lab/gpu/nvml';
import { NVML_CLOCK_MEM, NVML_CLOCK_SM, NVML_FI_DEV_POWER_AVERAGE, NVML_FI_DEV_POWER_INSTANT, NVML_TOTAL_POWER_SAMPLES, SampleBuffer } from '../../src/main/lab/gpu/nvml-ffi';
import { Sampler } from '../../src/main/lab/gpu/sampler';
import { BufferedSampler } from '../../src/main/lab/gpu/buffered-sampler';
import { openDb } from '../../src/main/lab/store/db';
import { readSamples, streamsOf } from '../../src/main/lab/store/sample-blocks';

interface Opts {
  interval: number;
  index: number;
  seconds: number;
  out: string;
  stopFile: string | null;
  batchMs: number;
  slowMs: number;
  mode: 'sampler' | 'bare' | 'worker' | 'buffered';
  backend: 'nvml' | 'noop';
  micro: boolean;
  dump: string | null;
}

function options(): Opts {
  const { values } = parseArgs({
    options: {
      interval: { type: 'string', default: '100' },
      index: { type: 'string', default: '0' },
      seconds: { type: 'string', default: '600' },
      out: { type: 'string', default: 'record' },
      'stop-file': { type: 'string' },
      'batch-ms': { type: 'string', default: '1000' },
      'slow-ms': { type: 'string', default: '1000' },
      mode: { type: 'string', default: 'sampler' },
      backend: { type: 'string', default: 'nvml' },
      micro: { type: 'boolean', default: false },
      dump: { type: 'string' },
    },
  });
  return {
    interval: Number(values.interval),
    index: Number(values.index),
    seconds: Number(values.seconds),
    out: values.out!,
    stopFile: values['stop-file'] ?? null,
    batchMs: Number(values['batch-ms']),
    slowMs: Number(values['slow-ms']),
    mode: values.mode as Opts['mode'],
    backend: values.backend as Opts['backend'],
    micro: !!values.micro,
    dump: values.dump ?? null,
  };
}

/** utime + stime of this process (all threads) in seconds, from /proc (what an outside observer sees). */
function procCpuS(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) / 100; // fields 14 and 15; CLK_TCK is 100 on Linux
}

function pct(xs: number[], p: number): number | null {
  if (!xs.length) return null;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.round((p / 100) * (s.length - 1))))]!;
}

interface SyncSource {
  sampleSync(ix: number[]): Sample[];
  now(): number;
  readEnergyMj(i: number): Promise<number | null>;
  close(): Promise<void>;
}

async function openSource(o: Opts): Promise<SyncSource & { nvml: NvmlBackend | null }> {
  if (o.backend === 'noop') {
    const p0 = performance.now();
    const w0 = Date.now() / 1000;
    const now = () => w0 + (performance.now() - p0) / 1000;
    return {
      nvml: null,
      now,
      sampleSync: (ix) => ix.map((i) => ({ device_id: `noop:${i}`, t: now(), power_w: 100, power_kind: 'instant', power_avg_w: null, energy_mj: null, sm_clock_mhz: 1980, mem_clock_mhz: 3201, temp_c: 30, util_gpu: 0, util_mem: 0, mem_used_mb: 0, limit_w: 700, throttle_reasons: 0 })),
      readEnergyMj: async () => null,
      close: async () => {},
    };
  }
  const b = await NvmlBackend.open({ checkSensors: false, slowEveryMs: o.slowMs, onWarning: (w) => console.error(`warning: ${w}`) });
  return Object.assign(b, { nvml: b });
}

async function micro(o: Opts): Promise<void> {
  const b = await NvmlBackend.open({ checkSensors: false });
  const lib = b.lib;
  const h = lib.handle(o.index);
  const time = (name: string, n: number, fn: () => unknown) => {
    fn();
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    for (let i = 0; i < n; i++) fn();
    const wall = ((performance.now() - t0) * 1000) / n;
    const c = process.cpuUsage(c0);
    return { call: name, n, wall_us: Math.round(wall * 100) / 100, cpu_us: Math.round(((c.user + c.system) / n) * 100) / 100 };
  };
  const rows = [
    time('nvmlDeviceGetFieldValues(186,185)', 2000, () => lib.fieldValues(h, [NVML_FI_DEV_POWER_INSTANT, NVML_FI_DEV_POWER_AVERAGE])),
    time('nvmlDeviceGetFieldValues(186)', 2000, () => lib.fieldValues(h, [NVML_FI_DEV_POWER_INSTANT])),
    time('nvmlDeviceGetPowerUsage', 2000, () => lib.powerUsageMw(h)),
    time('nvmlDeviceGetClockInfo(SM)', 2000, () => lib.clockMhz(h, NVML_CLOCK_SM)),
    time('nvmlDeviceGetClockInfo(MEM)', 2000, () => lib.clockMhz(h, NVML_CLOCK_MEM)),
    time('nvmlDeviceGetTemperature', 2000, () => lib.temperatureC(h)),
    time('nvmlDeviceGetUtilizationRates', 2000, () => lib.utilization(h)),
    time('nvmlDeviceGetMemoryInfo', 2000, () => lib.memoryUsedBytes(h)),
    time('nvmlDeviceGetCurrentClocksEventReasons', 2000, () => lib.clockEventReasons(h)),
    time('nvmlDeviceGetEnforcedPowerLimit', 2000, () => lib.enforcedLimitMw(h)),
    time('nvmlDeviceGetTotalEnergyConsumption', 100, () => lib.totalEnergyMj(h)),
  ];
  const tick = (slow: number) => {
    const bb = b as unknown as { opts: { slowEveryMs?: number } };
    bb.opts.slowEveryMs = slow;
    return time(`NvmlBackend.sampleSync, one GPU, slowEveryMs=${slow}`, 2000, () => b.sampleSync([o.index]));
  };
  rows.push(tick(0), tick(1000));
  // The driver's own power sample buffer: how many readings, how far apart, and what one read costs.
  const buffers: Record<string, unknown> = {};
  const sb = new SampleBuffer();
  try {
    const n = lib.readSampleBuffer(h, NVML_TOTAL_POWER_SAMPLES, 0, sb);
    const ts = Array.from(sb.timestampsUs.subarray(0, n));
    const gaps = ts.slice(1).map((x, i) => (x - ts[i]!) / 1000);
    buffers.total_power = {
      count: n,
      span_ms: n > 1 ? (ts[n - 1]! - ts[0]!) / 1000 : null,
      gap_ms_p10: pct(gaps, 10),
      gap_ms_p50: pct(gaps, 50),
      gap_ms_p90: pct(gaps, 90),
      last: Array.from(sb.values.subarray(Math.max(0, n - 5), n)),
      newest_age_ms: n ? Date.now() - ts[n - 1]! / 1000 : null,
    };
    rows.push(time('nvmlDeviceGetSamples(TOTAL_POWER, last 1 s), one call', 200, () => lib.readSampleBuffer(h, NVML_TOTAL_POWER_SAMPLES, (Date.now() - 1000) * 1000, sb)));
    rows.push(time('NvmlBackend.drainSamples, one GPU, last 1 s', 200, () => {
      (b as unknown as { gpus: { drain: { lastSeenUs: number } | null }[] }).gpus.forEach((g) => g.drain && (g.drain.lastSeenUs = (Date.now() - 1000) * 1000));
      return b.drainSamples([o.index], 100);
    }));
  } catch (e) {
    buffers.total_power = { error: (e as Error).message };
  }
  buffers.instant_field_now = lib.fieldValues(h, [NVML_FI_DEV_POWER_INSTANT, NVML_FI_DEV_POWER_AVERAGE]);
  writeFileSync(`${o.out}.json`, JSON.stringify({ index: o.index, driver: b.driver, library: lib.path, calls: rows, driver_sample_buffers: buffers }, null, 2));
  for (const r of rows) console.log(`${r.call.padEnd(52)} wall ${r.wall_us} us  cpu ${r.cpu_us} us`);
  console.log(JSON.stringify(buffers));
  await b.close();
}

/** Worker thread: sleep with Atomics.wait (no event loop per tick), sample, post batches every 500 ms. */
async function workerLoop(): Promise<void> {
  const o = workerData.opts as Opts;
  const ctl = new Int32Array(workerData.ctl as SharedArrayBuffer);
  const src = await openSource(o);
  parentPort!.postMessage({ type: 'ready', energy: await src.readEnergyMj(o.index) });
  let batch: Sample[] = [];
  const late: number[] = [];
  let skipped = 0;
  let next = performance.now();
  let lastPost = next;
  let callUs = 0;
  while (Atomics.load(ctl, 0) === 0) {
    next += o.interval;
    const d = next - performance.now();
    if (d > 0) Atomics.wait(ctl, 0, 0, d);
    if (Atomics.load(ctl, 0) !== 0) break;
    const behind = performance.now() - next;
    late.push(behind);
    if (behind > o.interval) {
      const missed = Math.floor(behind / o.interval);
      skipped += missed;
      next += missed * o.interval;
    }
    const c0 = process.cpuUsage();
    batch.push(...src.sampleSync([o.index]));
    const c = process.cpuUsage(c0);
    callUs += c.user + c.system;
    if (performance.now() - lastPost >= 500) {
      parentPort!.postMessage({ type: 'batch', samples: batch });
      batch = [];
      lastPost = performance.now();
    }
  }
  parentPort!.postMessage({ type: 'batch', samples: batch });
  parentPort!.postMessage({ type: 'done', late, skipped, callUs, energy: await src.readEnergyMj(o.index) });
  await src.close();
}

async function record(o: Opts): Promise<void> {
  const samples: Sample[] = [];
  let late: number[] = [];
  let ticks = 0;
  let skipped = 0;
  let callUs = 0;
  let energyStart: number | null = null;
  let energyEnd: number | null = null;
  let cpu0: number;
  let wall0: number;
  let stopSampling: () => Promise<void>;
  const wallNow = () => Date.now() / 1000;

  if (o.mode === 'worker') {
    const ctl = new SharedArrayBuffer(4);
    const w = new Worker(new URL(import.meta.url), { workerData: { opts: o, ctl } });
    let done: (v: { late: number[]; skipped: number; callUs: number; energy: number | null }) => void = () => {};
    const finished = new Promise<{ late: number[]; skipped: number; callUs: number; energy: number | null }>((r) => (done = r));
    await new Promise<void>((ready, fail) => {
      w.on('error', fail);
      w.on('message', (m: { type: string; samples?: Sample[]; energy?: number | null; late?: number[]; skipped?: number; callUs?: number }) => {
        if (m.type === 'ready') {
          energyStart = m.energy ?? null;
          ready();
        } else if (m.type === 'batch') samples.push(...m.samples!);
        else if (m.type === 'done') done({ late: m.late!, skipped: m.skipped!, callUs: m.callUs!, energy: m.energy ?? null });
      });
    });
    cpu0 = procCpuS();
    wall0 = wallNow();
    stopSampling = async () => {
      const v = new Int32Array(ctl);
      Atomics.store(v, 0, 1);
      Atomics.notify(v, 0);
      const r = await finished;
      late = r.late;
      skipped = r.skipped;
      callUs = r.callUs;
      energyEnd = r.energy;
      ticks = late.length;
      await w.terminate();
    };
  } else {
    const src = await openSource(o);
    energyStart = await src.readEnergyMj(o.index);
    const timed = {
      name: 'nvml',
      simulated: false,
      now: () => src.now(),
      sample: async (ix: number[]) => {
        const c0 = process.cpuUsage();
        const s = src.sampleSync(ix);
        const c = process.cpuUsage(c0);
        callUs += c.user + c.system;
        return s;
      },
    } as unknown as GpuBackend;
    cpu0 = procCpuS();
    wall0 = wallNow();
    if (o.mode === 'sampler') {
      const sampler = new Sampler({ backend: timed, indexes: [o.index], intervalMs: o.interval, onSamples: (s) => samples.push(...s) });
      sampler.start();
      stopSampling = async () => {
        sampler.stop();
        late = sampler.stats.lateMs;
        ticks = sampler.stats.ticks;
        skipped = sampler.stats.skipped;
        energyEnd = await src.readEnergyMj(o.index);
        await src.close();
      };
    } else if (o.mode === 'buffered') {
      const nvml = (src as unknown as { nvml: NvmlBackend | null }).nvml!;
      const timedDrain = Object.assign(Object.create(nvml) as NvmlBackend, {
        drainSamples: (ix: number[], ms: number) => {
          const c0 = process.cpuUsage();
          const s = nvml.drainSamples(ix, ms);
          const c = process.cpuUsage(c0);
          callUs += c.user + c.system;
          return s;
        },
      });
      const sampler = new BufferedSampler({ backend: timedDrain, indexes: [o.index], intervalMs: o.interval, batchMs: o.batchMs, onSamples: (s) => samples.push(...s) });
      sampler.start();
      stopSampling = async () => {
        sampler.stop();
        ticks = sampler.stats.wakes;
        energyEnd = await src.readEnergyMj(o.index);
        await src.close();
      };
    } else {
      let running = true;
      let timer: NodeJS.Timeout | null = null;
      let next = performance.now();
      const tick = () => {
        if (!running) return;
        late.push(performance.now() - next);
        const c0 = process.cpuUsage();
        samples.push(...src.sampleSync([o.index]));
        const c = process.cpuUsage(c0);
        callUs += c.user + c.system;
        ticks++;
        next += o.interval;
        timer = setTimeout(tick, Math.max(0, next - performance.now()));
      };
      tick();
      stopSampling = async () => {
        running = false;
        if (timer) clearTimeout(timer);
        energyEnd = await src.readEnergyMj(o.index);
        await src.close();
      };
    }
  }

  // Waiting must not wake the process itself: a timer for the deadline, a signal, and the stop file at most 1/s.
  await new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(deadline);
      if (poll) clearInterval(poll);
      resolve();
    };
    const deadline = setTimeout(done, o.seconds * 1000);
    const poll = o.stopFile ? setInterval(() => existsSync(o.stopFile!) && done(), 1000) : null;
    process.once('SIGUSR2', done);
  });
  const cpu1 = procCpuS();
  const wall1 = wallNow();
  await stopSampling();

  const dts = samples.slice(1).map((s, i) => (s.t - samples[i]!.t) * 1000);
  const lateS = late.slice(1);
  const errs = dts.map((d) => Math.abs(d - o.interval));
  const summary = {
    label: `caplab-${o.backend}-${o.mode}-${o.interval}ms${o.backend === 'nvml' ? `-slow${o.slowMs}` : ''}`,
    mode: o.mode,
    backend: o.backend,
    slow_every_ms: o.slowMs,
    interval_ms: o.interval,
    index: o.index,
    samples: samples.length,
    ticks,
    skipped,
    wall_s: wall1 - wall0,
    t_start: wall0,
    t_end: wall1,
    cpu_s_process: Math.round((cpu1 - cpu0) * 1000) / 1000,
    cpu_s_sample_calls: Math.round(callUs / 1000) / 1000,
    cpu_s_per_1000_samples_process: samples.length ? Math.round(((cpu1 - cpu0) / samples.length) * 1000 * 10000) / 10000 : null,
    cpu_s_per_1000_samples_calls: samples.length ? Math.round((callUs / 1e6 / samples.length) * 1000 * 10000) / 10000 : null,
    late_ms: { p50: pct(lateS, 50), p90: pct(lateS, 90), p99: pct(lateS, 99), max: pct(lateS, 100) },
    interval_error_ms: { p50: pct(errs, 50), p99: pct(errs, 99), max: pct(errs, 100) },
    energy_counter_mj: { start: energyStart, end: energyEnd },
    power_kinds: [...new Set(samples.map((s) => s.power_kind))],
  };
  writeFileSync(`${o.out}.jsonl`, samples.map((s) => JSON.stringify(s)).join('\n') + '\n');
  writeFileSync(`${o.out}.summary.json`, JSON.stringify(summary, null, 2));
  console.log(JSON.stringify(summary));
}

/** The first run of a sweep database and the sweep's samples (every stream), for the bench's Python side. */
function dump(file: string): void {
  const db = openDb(file, { readonly: true });
  try {
    const run = db.prepare('SELECT id, sweep_id, started_at, measure_start, measure_end, ended_at, energy_j, throughput, status FROM runs ORDER BY id LIMIT 1').get() as { sweep_id: number } & Record<string, unknown>;
    const samples = streamsOf(db, { sweep_id: run.sweep_id }).flatMap((st) => readSamples(db, st.stream_id, -Infinity, Infinity));
    process.stdout.write(JSON.stringify({ run, samples }));
  } finally {
    db.close();
  }
}

if (isMainThread && options().dump) {
  dump(options().dump!);
} else if (isMainThread) {
  const o = options();
  (o.micro ? micro(o) : record(o)).catch((e: unknown) => {
    console.error((e as Error).stack ?? String(e));
    process.exit(1);
  });
} else if (workerData?.opts) {
  workerLoop().catch((e: unknown) => {
    console.error((e as Error).stack ?? String(e));
    process.exit(1);
  });
}
