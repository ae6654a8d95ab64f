import { describe, expect, it } from 'vitest';
import { hpcaiCsvAdapter, hpcaiVisionAdapter } from '../../../src/core/adapters/hpcai';
import { detectAdapter, readThroughput } from '../../../src/core/adapters';
import { fixture } from './helpers';

describe('hpc-ai-perf-bench vision log', () => {
  it('sums epochs after the warm-up epoch', () => {
    const { text, file } = fixture('hpcai-vision.log');
    expect(detectAdapter(text)?.name).toBe('hpcai-vision');
    const r = hpcaiVisionAdapter.read(text, { file });
    // epochs 1..3: 9600 samples in 32 s
    expect(r).toMatchObject({ adapter: 'hpcai-vision', units: 'images', count: 9600, seconds: 32, rate: 300, window: null });
    expect(r.details.epochs).toBe(3);
    expect(r.details.mean_epoch_rate as number).toBeCloseTo((320 + 320 + 266.67) / 3, 6);
    expect(r.details.reported_avg_sps).toBe(302.22);
    expect(r.details.local_time).toEqual({ first: '2025-03-01 10:00:31,120', last: '2025-03-01 10:00:53,129' });
  });

  it('splits a log with several runs (epochs restart) and reports the last', () => {
    const { text } = fixture('hpcai-vision.log');
    const two = text + text.replace(/Processed 3200 samples in 10\.00s \(320\.00/g, 'Processed 6400 samples in 10.00s (640.00');
    const r = hpcaiVisionAdapter.read(two, { file: 'two.log' });
    expect(r.details.runs).toBe(2);
    expect(r.count).toBe(6400 * 2 + 3200);
    expect(r.seconds).toBe(32);
  });

  it('skip 0 keeps the first epoch', () => {
    const { text, file } = fixture('hpcai-vision.log');
    const r = hpcaiVisionAdapter.read(text, { file, skip: 0 });
    expect(r.count).toBe(1600 + 9600);
    expect(r.seconds).toBe(52);
  });

  it('a malformed epoch line is an error naming the line', () => {
    const text = 'x\nTrain Epoch 1: Processed many samples in 10.00s (1.00 samples/sec)\n';
    expect(() => hpcaiVisionAdapter.read(text, { file: 'v.log' })).toThrowError(/^v\.log:2: malformed epoch line/);
  });

  it('a log without epoch lines says so', () => {
    expect(() => hpcaiVisionAdapter.read('hello\n', { file: 'v.log' })).toThrowError("v.log: no 'Train Epoch N: Processed ... samples/sec' lines found");
  });
});

describe('hpc-ai-perf-bench benchmark CSV', () => {
  it('reports the last row with per-GPU rate and power', () => {
    const { text, file } = fixture('hpcai-benchmark.csv');
    expect(detectAdapter(text)?.name).toBe('hpcai-csv');
    const r = readThroughput(text, { file });
    expect(r).toMatchObject({ adapter: 'hpcai-csv', units: 'images', count: null, seconds: null, rate: 1223.88 });
    expect(r.details).toMatchObject({ num_gpus: 4, batch_size: 32, img_size: 224, avg_gpu_power_watts: 689.2, power_limit_watts: 700, gpu_name: 'NVIDIA H100 80GB HBM3', row_line: 3 });
    expect(r.details.rate_per_gpu as number).toBeCloseTo(305.97, 6);
    expect((r.details.rows as unknown[]).length).toBe(2);
  });

  it('a non-numeric rate is an error naming file and line', () => {
    const { text, file } = fixture('hpcai-bad.csv');
    expect(() => hpcaiCsvAdapter.read(text, { file })).toThrowError('hpcai-bad.csv:3: avg_train_sps is not a number: "fast"');
  });
});
