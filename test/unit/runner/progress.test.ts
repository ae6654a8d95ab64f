import { describe, expect, it } from 'vitest';
import { formatProtocolEvent, type ProtocolEvent } from '../../../src/shared/protocol';
import { RunProgress, windowFromAdapter, type ProgressOptions, type ProgressSignal } from '../../../src/main/lab/runner/progress';
import { readThroughput } from '../../../src/core/adapters';

const T0 = 1_700_000_000;
const line = (ev: ProtocolEvent) => formatProtocolEvent(ev);
const start = (gpus = 2) => line({ ev: 'start', t: T0, workload: 'vit_l_16', units: 'images', gpus });
/** Step n ends at T0 + n * dt. */
const step = (n: number, units = 64, dt = 0.5) => line({ ev: 'step', t: T0 + n * dt, n, units, dt });

function feed(p: RunProgress, lines: string[], now?: number): ProgressSignal[] {
  return lines.flatMap((l) => p.pushLine(l, now));
}

function clock(t = 0) {
  const c = { t, now: () => c.t };
  return c;
}

const opts = (o: Partial<ProgressOptions> = {}): ProgressOptions => ({ warmup: { steps: 2 }, window: { steps: 4 }, now: clock().now, ...o });

describe('warm-up and window', () => {
  it('by steps: warm-up ends with step 2, the window is the next 4 steps', () => {
    const p = new RunProgress(opts({ gpus: 2 }));
    const sigs = feed(p, ['loading...', start(), ...[1, 2, 3, 4, 5, 6, 7].map((n) => step(n))]);
    expect(sigs.filter((s) => s.type === 'warmup-end')).toEqual([{ type: 'warmup-end', t: T0 + 1, steps: 2 }]);
    const done = sigs.filter((s) => s.type === 'window-complete');
    expect(done).toHaveLength(1);
    // steps 3..6: 4 x 64 images in T0+1 .. T0+3
    expect(p.window).toEqual({ start: T0 + 1, end: T0 + 3, seconds: 2, units: 256, steps: 4, rate: 128, rate_per_gpu: 64, gpus: 2, unit_name: 'images' });
    expect(p.phase).toBe('complete');
    expect(p.warmupEnd).toBe(T0 + 1);
    // The step that completes the window is reported before window-complete; later steps change nothing.
    const kinds = sigs.map((s) => s.type);
    expect(kinds.lastIndexOf('window-complete')).toBe(kinds.length - 2);
    expect(p.finish({ exitCode: null, signal: 15 })).toMatchObject({ status: 'done', window: { rate: 128 } });
  });

  it('by seconds: warm-up counts from the start of the first step; the window closes at the first step past its length', () => {
    const p = new RunProgress(opts({ warmup: { seconds: 1.2 }, window: { seconds: 2 }, gpus: 1 }));
    // steps of 0.5 s; the first begins at T0: warm-up ends with step 3 (T0+1.5 >= 1.2), window until T0+1.5+2 = step 7
    feed(p, [start(1), ...[1, 2, 3, 4, 5, 6, 7, 8].map((n) => step(n, 10))]);
    expect(p.warmupEnd).toBe(T0 + 1.5);
    expect(p.window).toMatchObject({ start: T0 + 1.5, end: T0 + 3.5, seconds: 2, units: 40, steps: 4, rate: 20, rate_per_gpu: 20, gpus: 1 });
  });

  it('per-GPU rate uses the plan\'s GPU count over the start event\'s', () => {
    const p = new RunProgress(opts({ gpus: 4, warmup: { steps: 1 }, window: { steps: 1 } }));
    feed(p, [start(1), step(1, 100, 1), step(2, 100, 1)]);
    expect(p.window).toMatchObject({ rate: 100, rate_per_gpu: 25, gpus: 4 });
    const q = new RunProgress(opts({ warmup: { steps: 1 }, window: { steps: 1 } }));
    feed(q, [start(2), step(1, 100, 1), step(2, 100, 1)]);
    expect(q.window).toMatchObject({ rate_per_gpu: 50, gpus: 2 });
  });

  it('step signals carry the step rate; metrics pass through', () => {
    const p = new RunProgress(opts());
    const sigs = feed(p, [start(), step(1, 64, 0.5), line({ ev: 'metric', t: T0 + 1, name: 'loss', value: 6.5 })]);
    expect(sigs[1]).toMatchObject({ type: 'step', phase: 'warmup', rate: 128 });
    expect(sigs[2]).toEqual({ type: 'metric', t: T0 + 1, name: 'loss', value: 6.5 });
    expect(p.lastMetrics).toEqual({ loss: 6.5 });
  });

  it('raw pty chunks are split into lines, CRLF and partial lines included', () => {
    const p = new RunProgress(opts({ warmup: { steps: 1 }, window: { steps: 1 } }));
    const text = [start(), step(1), step(2)].join('\r\n') + '\r\n';
    const sigs = [text.slice(0, 30), text.slice(30, 101), text.slice(101)].flatMap((c) => p.pushChunk(c));
    expect(sigs.map((s) => s.type)).toEqual(['start', 'step', 'warmup-end', 'step', 'window-complete']);
  });
});

describe('failures', () => {
  it('an oom error event fails the run at once', () => {
    const p = new RunProgress(opts());
    const sigs = feed(p, [start(), step(1), 'Traceback (most recent call last):', line({ ev: 'error', t: T0 + 2, message: 'out of memory: Tried to allocate 2.00 GiB', kind: 'oom' })]);
    expect(sigs.at(-1)).toMatchObject({ type: 'failure', failure: { reason: 'oom', message: 'out of GPU memory: out of memory: Tried to allocate 2.00 GiB' } });
    const out = p.finish({ exitCode: 3 });
    expect(out).toMatchObject({ status: 'failed', failure: { reason: 'oom', exitCode: 3 } });
    if (out.status === 'failed') expect(out.failure.lastLines).toContain('Traceback (most recent call last):');
  });

  it("'CUDA out of memory' text and a non-zero exit is an OOM; the same text with a finished window is not", () => {
    const p = new RunProgress(opts());
    feed(p, [start(), step(1), 'RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 79.19 GiB total capacity)']);
    const out = p.finish({ exitCode: 1 });
    expect(out).toMatchObject({ status: 'failed', failure: { reason: 'oom', exitCode: 1 } });
    if (out.status === 'failed') expect(out.failure.message).toMatch(/^out of GPU memory: the workload exited with code 1 during warm-up \(1 steps\); output: RuntimeError: CUDA out of memory/);

    const q = new RunProgress(opts({ warmup: { steps: 1 }, window: { steps: 1 } }));
    feed(q, [start(), 'batch 4096: CUDA out of memory, trying smaller', step(1), step(2)]);
    expect(q.finish({ exitCode: 0 }).status).toBe('done');
  });

  it('a crash names its exit code and where it happened', () => {
    const p = new RunProgress(opts());
    feed(p, [start(), step(1), step(2), step(3), 'Segmentation fault']);
    expect(p.finish({ exitCode: 139 })).toMatchObject({
      status: 'failed',
      failure: { reason: 'crash', exitCode: 139, message: "the workload exited with code 139 before the measurement window was complete (1 of the window's steps)" },
    });
    const q = new RunProgress(opts());
    expect(q.finish({ exitCode: null, signal: 9 })).toMatchObject({ failure: { reason: 'crash', signal: 9, message: 'the workload was killed by signal 9 before its first step' } });
  });

  it('an exit 0 before the window is complete is incomplete; a cancel is a cancel', () => {
    const p = new RunProgress(opts());
    feed(p, [start(), step(1)]);
    expect(p.finish({ exitCode: 0 })).toMatchObject({ status: 'failed', failure: { reason: 'incomplete', message: 'the workload exited during warm-up (1 steps)' } });
    const q = new RunProgress(opts());
    feed(q, [start(), step(1)]);
    expect(q.finish({ exitCode: null, signal: 15, cancelled: true })).toMatchObject({ status: 'cancelled', window: null });
  });

  it('config and crash error events map to their reasons', () => {
    const p = new RunProgress(opts());
    expect(feed(p, [line({ ev: 'error', t: T0, message: 'no GPU is visible to PyTorch', kind: 'config' })]).at(-1)).toMatchObject({ type: 'failure', failure: { reason: 'config', message: 'no GPU is visible to PyTorch' } });
    const q = new RunProgress(opts());
    expect(feed(q, [line({ ev: 'error', t: T0, message: 'ValueError: x', kind: 'crash' })]).at(-1)).toMatchObject({ failure: { reason: 'crash' } });
  });

  it('hang: no step for hang_timeout_s on the runner clock', () => {
    const c = clock(100);
    const p = new RunProgress(opts({ hangTimeoutS: 30, now: c.now }));
    c.t = 129;
    expect(p.checkHang()).toBeNull();
    c.t = 131;
    expect(p.checkHang()).toMatchObject({ reason: 'hang', message: 'no step within 31 s of the start (hang_timeout_s 30)' });

    const q = new RunProgress(opts({ hangTimeoutS: 30, now: c.now }));
    feed(q, [start(), step(1)], 140);
    c.t = 165;
    expect(q.checkHang()).toBeNull();
    feed(q, [step(2)], 165);
    c.t = 196;
    expect(q.checkHang()).toMatchObject({ reason: 'hang', message: 'no step for 31 s after step 2 (hang_timeout_s 30)' });
    expect(q.finish({ exitCode: null, signal: 9 })).toMatchObject({ status: 'failed', failure: { reason: 'hang', signal: 9 } });
  });

  it('no hang once the window is complete', () => {
    const c = clock(0);
    const p = new RunProgress(opts({ hangTimeoutS: 5, warmup: { steps: 1 }, window: { steps: 1 }, now: c.now }));
    feed(p, [start(), step(1), step(2)], 0);
    c.t = 100;
    expect(p.checkHang()).toBeNull();
  });

  it('garbage: too many invalid protocol (or binary) lines fail the run', () => {
    const p = new RunProgress(opts({ maxInvalidLines: 5 }));
    const sigs = feed(p, [start(), step(1), '@caplab {"ev":"step","t":"x"}', '@caplab {{{', '\u0000\u0001\u0002\u0003\u0004\u0005garbage\u0006\u0007\u0008', '@caplab nope', '@caplab []']);
    const f = sigs.filter((s) => s.type === 'failure');
    expect(f).toHaveLength(1);
    expect(f[0]).toMatchObject({ failure: { reason: 'garbage' } });
    expect((f[0] as Extract<ProgressSignal, { type: 'failure' }>).failure.message).toMatch(/^the workload printed 5 lines that are not valid protocol or text \(first: @caplab \{"ev":"step","t":"x"\} \(t: /);
    expect(p.stats()).toMatchObject({ invalid_lines: 5, valid_events: 2 });
  });

  it('a few invalid lines among many good events are tolerated', () => {
    const p = new RunProgress(opts({ maxInvalidLines: 3, warmup: { steps: 1 }, window: { steps: 10 } }));
    const lines = [start()];
    for (let n = 1; n <= 11; n++) lines.push(step(n), n % 3 === 0 ? '@caplab {bad' : 'ok');
    feed(p, lines);
    expect(p.failure).toBeNull();
    expect(p.window?.steps).toBe(10);
  });
});

describe('output kept for the run record', () => {
  it('keeps the last N lines, without ANSI codes, long lines cut', () => {
    const p = new RunProgress(opts({ keepLines: 3, maxLineLength: 10 }));
    feed(p, ['one', '\u001b[31mred\u001b[0m', 'x'.repeat(25), 'four']);
    expect(p.lastLines()).toEqual(['red', `${'x'.repeat(10)}…`, 'four']);
  });
});

describe('adapter results as windows', () => {
  it('an adapter result with an absolute window becomes a measured window; a rate-only one does not', () => {
    const lines = [start(2), ...[1, 2, 3].map((n) => step(n))].join('\n');
    const w = windowFromAdapter(readThroughput(lines, { file: 'run.log' }), 4);
    expect(w).toEqual({ start: T0 + 0.5, end: T0 + 1.5, seconds: 1, units: 128, steps: 0, rate: 128, rate_per_gpu: 32, gpus: 4, unit_name: 'images' });
    expect(windowFromAdapter({ adapter: 'hpcai-csv', units: 'images', count: null, seconds: null, rate: 10, window: null, window_derived: 'test', details: {} }, 1)).toBeNull();
  });
});

describe('steps that cannot be timed', () => {
  it('a step with dt 1e-300 is not a protocol step, and a window without duration fails instead of storing an infinite throughput', () => {
    const tiny = `@caplab {"ev":"step","t":${T0 + 1},"n":1,"units":64,"dt":1e-300}`;
    const p = new RunProgress(opts({ warmup: { steps: 1 }, window: { steps: 1 } }));
    const sigs = feed(p, [start(1), tiny]);
    expect(sigs.some((s) => s.type === 'step')).toBe(false);
    // Two steps at the same t: the window has no length.
    const q = new RunProgress(opts({ warmup: { steps: 1 }, window: { steps: 1 } }));
    const same = (n: number) => line({ ev: 'step', t: T0 + 1, n, units: 64, dt: 0.5 });
    feed(q, [start(1), same(1), same(2)]);
    expect(q.window).toBeNull();
    const outcome = q.finish({ exitCode: 0, signal: null });
    expect(outcome.status).toBe('failed');
    expect(outcome.status === 'failed' && outcome.failure.message).toMatch(/no finite throughput/);
  });
});
