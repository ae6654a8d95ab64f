import { describe, expect, it } from 'vitest';
import { litgptAdapter } from '../../../src/core/adapters/litgpt';
import { detectAdapter } from '../../../src/core/adapters';
import { fixture } from './helpers';

describe('LitGPT metrics.csv', () => {
  it('counts total_tokens over the time column after the baseline row', () => {
    const { text, file } = fixture('litgpt-metrics.csv');
    expect(detectAdapter(text)?.name).toBe('litgpt');
    const r = litgptAdapter.read(text, { file });
    // baseline iter 8 (t=10.256 s), last iter 20 (t=11.024 s): 12 iters x 8192 tokens in 0.768 s
    expect(r).toMatchObject({ adapter: 'litgpt', units: 'tokens', count: 98304 });
    expect(r.seconds!).toBeCloseTo(0.768, 9);
    expect(r.rate).toBeCloseTo(128000, 3);
    expect(r.details).toMatchObject({ method: 'time column', rows: 5, rows_used: 3, first_iter: 8, last_iter: 20, world_size: 4 });
    expect(r.details.rate_per_gpu as number).toBeCloseTo(32000, 3);
    expect(r.details.items_per_sec_mean as number).toBeCloseTo((128000 + 127950.2 + 128010.7) / 3, 6);
  });

  it('excludes validation pauses: training time only, the wall-clock rate beside it, and says how its window was derived', () => {
    const { text, file } = fixture('litgpt-metrics.csv');
    // A 30 s validation pause: every row after the validation row is logged 30 s later.
    const lines = text.trim().split('\n');
    const ti = lines[0]!.split(',').indexOf('time');
    const paused = lines.map((l, i) => {
      if (i < 5) return l;
      const cells = l.split(',');
      cells[ti] = String(Number(cells[ti]) + 30);
      return cells.join(',');
    });
    const r = litgptAdapter.read(paused.join('\n') + '\n', { file });
    expect(r.count).toBe(98304);
    expect(r.seconds!).toBeCloseTo(0.768, 9);
    expect(r.rate).toBeCloseTo(128000, 3);
    expect(r.details).toMatchObject({ method: 'time column, validation pauses excluded', eval_pauses: 1 });
    expect(r.details.eval_pause_seconds as number).toBeCloseTo(30, 9);
    expect(r.details.wall_clock_seconds as number).toBeCloseTo(30.768, 9);
    expect(r.details.wall_clock_rate as number).toBeCloseTo(98304 / 30.768, 6);
    expect(r.window).toBeNull();
    expect(r.window_derived).toMatch(/no absolute time.*iter 8.*iter 20.*validation pauses excluded/);
  });

  it('without a time column uses iterations x iter_time', () => {
    const { text } = fixture('litgpt-metrics.csv');
    const lines = text.trim().split('\n').map((l) => l.split(','));
    const ti = lines[0]!.indexOf('time');
    const noTime = lines.map((cells) => cells.filter((_, i) => i !== ti).join(',')).join('\n') + '\n';
    const r = litgptAdapter.read(noTime, { file: 'm.csv' });
    expect(r.details.method).toBe('iterations x iter_time (no time column)');
    expect(r.seconds!).toBeCloseTo(12 * 0.064, 9);
    expect(r.count).toBe(98304);
  });

  it('a row of the wrong width is an error naming file and line', () => {
    const { text, file } = fixture('litgpt-bad.csv');
    expect(() => litgptAdapter.read(text, { file })).toThrowError('litgpt-bad.csv:4: expected 24 columns as in the header, found 25');
  });

  it('a non-numeric cell names its column and line', () => {
    const text = 'iter,iter_time,tokens,total_tokens,time\n1,0.1,10,40,1.0\n2,0.1,abc,80,1.1\n';
    expect(() => litgptAdapter.read(text, { file: 'm.csv' })).toThrowError('m.csv:3: tokens is not a number: "abc"');
  });
});
