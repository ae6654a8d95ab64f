import { describe, expect, it } from 'vitest';
import { mllogAdapter } from '../../../src/core/adapters/mllog';
import { detectAdapter } from '../../../src/core/adapters';
import { fixture } from './helpers';

describe('MLPerf MLLOG', () => {
  it('uses samples_count progress of training events (eval excluded), with an absolute window', () => {
    const { text, file } = fixture('mllog.log');
    expect(detectAdapter(text)?.name).toBe('mllog');
    const r = mllogAdapter.read(text, { file });
    // block_start (0 samples, t=1700000005.1) .. train_loss (3072 samples, t=1700000180)
    expect(r).toMatchObject({ adapter: 'mllog', units: 'samples', count: 3072 });
    expect(r.seconds!).toBeCloseTo(174.9, 6);
    expect(r.rate).toBeCloseTo(3072 / 174.9, 6);
    expect(r.window).toEqual({ start: 1700000005.1, end: 1700000180 });
    expect(r.details).toMatchObject({ method: 'samples_count progress over training time (evaluation pauses left out)', benchmark: 'llama2_70b_lora', global_batch_size: 8, status: 'success' });
  });

  it('counts training time only: an evaluation pause inside the window is left out, the wall-clock rate reported beside it', () => {
    const { text, file } = fixture('mllog.log');
    // One more training event after the evaluation (eval_start 180.1 s .. eval_stop 190.1 s), before run_stop.
    const more = '0: :::MLLOG {"namespace": "", "time_ms": 1700000250000, "event_type": "POINT_IN_TIME", "key": "train_loss", "value": 1.2, "metadata": {"file": "callbacks.py", "lineno": 61, "samples_count": 4096}}';
    const lines = text.split('\n');
    const stop = lines.findIndex((l) => l.includes('"run_stop"'));
    const r = mllogAdapter.read([...lines.slice(0, stop), more, ...lines.slice(stop)].join('\n'), { file });
    expect(r.count).toBe(4096);
    expect(r.details.eval_seconds).toBeCloseTo(10, 6);
    expect(r.details.wall_clock_seconds).toBeCloseTo(250 - 5.1, 6);
    expect(r.seconds!).toBeCloseTo(250 - 5.1 - 10, 6);
    expect(r.rate).toBeCloseTo(4096 / 234.9, 6);
    expect(r.details.wall_clock_rate).toBeCloseTo(4096 / 244.9, 6);
    expect(r.window).toEqual({ start: 1700000005.1, end: 1700000250 });
  });

  it('falls back to run_start..run_stop x global batch size', () => {
    const { text } = fixture('mllog.log');
    const stripped = text.replace(/, "samples_count": \d+/g, '');
    const r = mllogAdapter.read(stripped, { file: 'm.log' });
    expect(r.details.method).toMatch(/^run_start\.\.run_stop/);
    expect(r.count).toBe(384 * 8);
    expect(r.seconds!).toBeCloseTo(185.2, 6);
  });

  it('reported throughput values (tracked_stats)', () => {
    const lines = [1, 2, 3].map((i) => `:::MLLOG {"namespace": "", "time_ms": ${1700000000000 + i * 1000}, "event_type": "POINT_IN_TIME", "key": "tracked_stats", "value": {"throughput": ${10 * i}}, "metadata": {"step": ${i}}}`);
    const r = mllogAdapter.read(lines.join('\n'), { file: 'm.log' });
    expect(r).toMatchObject({ count: null, seconds: null, rate: 20, window: { start: 1700000001, end: 1700000003 } });
  });

  it('broken JSON after :::MLLOG names the line', () => {
    const { text, file } = fixture('mllog-bad.log');
    expect(() => mllogAdapter.read(text, { file })).toThrowError(/^mllog-bad\.log:3: not JSON after :::MLLOG/);
  });
});
