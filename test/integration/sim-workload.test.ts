// The simulated workload as a real child process (`node bin/caplab.mjs sim-workload`), its output parsed with the
// same parser the runner uses, and its load seen by a SimBackend in this process through the activity file.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { LineSplitter, parseProtocolLine, type ParsedLine, type ProtocolEvent } from '../../src/shared/protocol';
import { SimBackend } from '../../src/main/lab/gpu/sim';
import { SimClock } from '../../src/main/lab/gpu/sim-clock';
import { tempDir } from '../helpers/tmp';

const CLI = join(process.cwd(), 'bin', 'caplab.mjs');
const SPEEDUP = 50;

let tmp: ReturnType<typeof tempDir>;
let clock: SimClock;
beforeEach(() => {
  tmp = tempDir('caplab-simwl-');
  clock = new SimClock(Date.now() / 1000, SPEEDUP);
});
afterEach(() => tmp.cleanup());

interface Workload {
  lines: ParsedLine[];
  kill: (signal: NodeJS.Signals) => void;
  /** Resolves once the parsed output satisfies pred. */
  until: (pred: (lines: ParsedLine[]) => boolean) => Promise<void>;
  done: Promise<{ code: number | null; stderr: string }>;
}

function startWorkload(args: string[]): Workload {
  const child = spawn(process.execPath, [CLI, 'sim-workload', '--state-dir', tmp.dir, '--clock', clock.toString(), ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: ParsedLine[] = [];
  const waiters: (() => void)[] = [];
  const splitter = new LineSplitter();
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    for (const l of splitter.push(chunk)) lines.push(parseProtocolLine(l));
    waiters.forEach((w) => w());
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const done = new Promise<{ code: number | null; stderr: string }>((resolve) =>
    child.on('close', (code) => {
      for (const l of splitter.flush()) lines.push(parseProtocolLine(l));
      waiters.forEach((w) => w());
      resolve({ code, stderr });
    }),
  );
  const until = (pred: (lines: ParsedLine[]) => boolean) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (pred(lines)) resolve();
        else if (child.exitCode !== null) reject(new Error(`workload exited (${child.exitCode}) first; stderr: ${stderr}`));
      };
      waiters.push(check);
      check();
    });
  return { lines, kill: (s) => child.kill(s), until, done };
}

const events = (lines: ParsedLine[]): ProtocolEvent[] => lines.flatMap((l) => (l.kind === 'event' ? [l.event] : []));
const steps = (lines: ParsedLine[]) => events(lines).flatMap((e) => (e.ev === 'step' ? [e] : []));
const activityFiles = () => {
  try {
    return readdirSync(join(tmp.dir, 'sim-activity'));
  } catch {
    return [];
  }
};

describe('caplab sim-workload (real child process)', () => {
  it('prints start, steps at the calibrated rate for the cap in the state file, text lines and a summary', async () => {
    const backend = new SimBackend({ stateDir: tmp.dir, presets: ['h100-sxm'], clock });
    await backend.setPowerLimit(0, 300);
    const wl = startWorkload(['--workload', 'vit_l_16', '--devices', '0', '--max-steps', '120', '--seed', '4']);

    // While it runs, this process's backend sees the load through the activity file: capped power, cap bit set.
    await wl.until((l) => steps(l).length >= 30);
    await backend.listDevices(); // re-reads the activity files now rather than within 200 ms
    const readings = [];
    for (let i = 0; i < 6; i++) {
      readings.push((await backend.sample([0]))[0]!);
      await new Promise((r) => setTimeout(r, 5));
    }
    const meanPower = readings.reduce((a, s) => a + s.power_w!, 0) / readings.length;
    expect(meanPower).toBeGreaterThan(280);
    expect(meanPower).toBeLessThan(310);
    expect(readings.every((s) => s.util_gpu! > 80 && (s.throttle_reasons! & 0x4) === 0x4)).toBe(true);

    const { code, stderr } = await wl.done;
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const evs = events(wl.lines);
    expect(evs[0]).toMatchObject({ ev: 'start', workload: 'vit_l_16', units: 'images', gpus: 1, batch_size: 128 });
    expect(wl.lines.filter((l) => l.kind === 'invalid')).toEqual([]);
    expect(wl.lines.some((l) => l.kind === 'text' && /^Train Epoch 1: Processed 6400 samples in [\d.]+s/.test(l.text))).toBe(true);
    expect(evs.filter((e) => e.ev === 'phase').map((e) => (e.ev === 'phase' ? e.name : ''))).toEqual(['warmup', 'measure', 'done']);

    const all = steps(wl.lines);
    expect(all).toHaveLength(120);
    expect(all.map((s) => s.n)).toEqual(Array.from({ length: 120 }, (_, i) => i + 1));
    for (let i = 1; i < all.length; i++) expect(all[i]!.t).toBeCloseTo(all[i - 1]!.t + all[i]!.dt, 6);
    // Warm-up: the first steps are slower than the steady ones.
    expect(all[0]!.dt).toBeGreaterThan(1.3 * all[all.length - 1]!.dt);

    const measureT = evs.find((e) => e.ev === 'phase' && e.name === 'measure')!.t;
    const steadySteps = all.filter((s) => s.t > measureT);
    const rate = steadySteps.reduce((a, s) => a + s.units, 0) / steadySteps.reduce((a, s) => a + s.dt, 0);
    expect(Math.abs(rate / 214.9 - 1)).toBeLessThan(0.05);
    expect(evs[evs.length - 1]).toMatchObject({ ev: 'summary', units: 120 * 128 });
    // Simulated time: 120 steps of ~0.6 s took far less wall time.
    expect(all[all.length - 1]!.t - evs[0]!.t).toBeGreaterThan(60);
    expect(activityFiles()).toEqual([]);
  });

  it('follows a cap changed mid-run; multi-GPU steps go at the slowest GPU and sum units', async () => {
    const backend = new SimBackend({ stateDir: tmp.dir, presets: ['h100-sxm', 'h100-sxm'], clock });
    const wl = startWorkload(['--workload', 'llama_pretrain', '--devices', '0,1', '--max-steps', '80']);
    await wl.until((l) => steps(l).length >= 10);
    await backend.setPowerLimit(1, 200);
    const { code } = await wl.done;
    expect(code).toBe(0);
    const all = steps(wl.lines);
    expect(all.every((s) => s.units === 2 * 16 * 512)).toBe(true);
    expect(all[5]!.dt).toBeLessThan(0.5);
    const tail = all.slice(-20);
    const perGpu = tail.reduce((a, s) => a + s.units, 0) / tail.reduce((a, s) => a + s.dt, 0) / 2;
    expect(Math.abs(perGpu / 9699.3 - 1)).toBeLessThan(0.05);
  });

  it('hangs on request, and on SIGTERM removes its activity file and exits 143', async () => {
    const wl = startWorkload(['--workload', 'resnet50', '--hang-after-s', '12']);
    await wl.until((l) => steps(l).length >= 1);
    expect(activityFiles()).toHaveLength(1);
    // Close to the hang point, give it 15 simulated seconds (0.3 s) to get there, then 15 more: nothing may come.
    const started = events(wl.lines)[0]!.t;
    await wl.until((l) => steps(l).at(-1)!.t > started + 11.5);
    await new Promise((r) => setTimeout(r, 300));
    const before = steps(wl.lines).length;
    await new Promise((r) => setTimeout(r, 300));
    expect(steps(wl.lines).length).toBe(before);
    expect(steps(wl.lines).at(-1)!.t - started).toBeLessThanOrEqual(12);
    wl.kill('SIGTERM');
    const { code } = await wl.done;
    expect(code).toBe(143);
    expect(activityFiles()).toEqual([]);
  });

  it('crashes on request with an error event and exit code 1, and prints garbage on request', async () => {
    const wl = startWorkload(['--workload', 'vit_l_16', '--fail-after-s', '10', '--garbage']);
    const { code } = await wl.done;
    expect(code).toBe(1);
    const evs = events(wl.lines);
    expect(evs.at(-1)).toMatchObject({ ev: 'error', kind: 'crash' });
    expect(wl.lines.some((l) => l.kind === 'text' && l.text.startsWith('Traceback'))).toBe(true);
    expect(steps(wl.lines).length).toBeGreaterThan(3);
    expect(wl.lines.filter((l) => l.kind === 'invalid').length).toBeGreaterThanOrEqual(2);
    expect(activityFiles()).toEqual([]);
  });

  it('reports bad input as a config error event with exit code 2', async () => {
    const wl = startWorkload(['--workload', 'gpt5_train']);
    const { code } = await wl.done;
    expect(code).toBe(2);
    const ev = events(wl.lines)[0];
    expect(ev).toMatchObject({ ev: 'error', kind: 'config' });
    expect(ev?.ev === 'error' && ev.message).toMatch(/unknown simulated workload "gpt5_train"; known: resnet50/);
  });

  it('runs out of memory where the model does not fit', async () => {
    new SimBackend({ stateDir: tmp.dir, presets: ['rtx-4090'] });
    const wl = startWorkload(['--workload', 'llama_pretrain']);
    const { code } = await wl.done;
    expect(code).toBe(1);
    expect(events(wl.lines).at(-1)).toMatchObject({ ev: 'error', kind: 'oom' });
  });
});
