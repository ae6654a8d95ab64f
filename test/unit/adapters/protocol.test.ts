import { describe, expect, it } from 'vitest';
import { protocolAdapter } from '../../../src/core/adapters/protocol';
import { readThroughput } from '../../../src/core/adapters';
import { fixture } from './helpers';

describe('protocol adapter', () => {
  it('measures the workload-announced measure phase', () => {
    const { text, file } = fixture('protocol.log');
    const r = protocolAdapter.read(text, { file });
    expect(r).toMatchObject({ adapter: 'protocol', units: 'images', count: 256, seconds: 2, rate: 128 });
    expect(r.window).toEqual({ start: 1700000002, end: 1700000004 });
    expect(r.details).toMatchObject({ method: 'measure phase', steps: 4, gpus: 2, rate_per_gpu: 64, workload: 'vit_l_16', batch_size: 32 });
    expect((r.details.metrics as Record<string, number>).loss).toBe(6.91);
  });

  it('without phases drops the first step as warm-up', () => {
    const { text, file } = fixture('protocol-nophase.log');
    const r = readThroughput(text, { file });
    expect(r.adapter).toBe('protocol');
    // steps 2..4: 1024 + 1024 + 2048 tokens from t=102 to t=105
    expect(r).toMatchObject({ units: 'tokens', count: 4096, seconds: 3 });
    expect(r.rate).toBeCloseTo(4096 / 3, 9);
    expect(r.window).toEqual({ start: 1700000102, end: 1700000105 });
  });

  it('an explicit skip overrides the measure phase', () => {
    const { text, file } = fixture('protocol.log');
    const r = protocolAdapter.read(text, { file, skip: 0 });
    expect(r.count).toBe(6 * 64);
    expect(r.window).toEqual({ start: 1700000000.5, end: 1700000004 });
  });

  it('garbage protocol lines are an error naming file and line', () => {
    const { text, file } = fixture('protocol-garbage.log');
    expect(() => protocolAdapter.read(text, { file })).toThrowError(/^protocol-garbage\.log:2: invalid @caplab line \(t: [^)]*\): @caplab \{"ev":"step","t":"soon","n":1\}; 3 of 4 protocol lines are invalid/);
  });

  it('a log with no steps names the workload error', () => {
    const text = '@caplab {"ev":"start","t":1,"workload":"x","units":"images"}\n@caplab {"ev":"error","t":2,"message":"CUDA out of memory","kind":"oom"}\n';
    expect(() => protocolAdapter.read(text, { file: 'run.log' })).toThrowError('run.log:2: no step events in the log; the workload reported an error: CUDA out of memory');
  });
});
