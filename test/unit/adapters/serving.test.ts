import { describe, expect, it } from 'vitest';
import { servingJsonAdapter, sglangAdapter, vllmAdapter } from '../../../src/core/adapters/serving';
import { detectAdapter, readThroughput } from '../../../src/core/adapters';
import { fixture } from './helpers';

describe('SGLang bench_serving block', () => {
  it('reads output throughput, tokens, duration and latencies', () => {
    const { text, file } = fixture('sglang-bench.txt');
    expect(detectAdapter(text)?.name).toBe('sglang');
    const r = sglangAdapter.read(text, { file });
    expect(r).toMatchObject({ adapter: 'sglang', units: 'tokens', count: 262144, seconds: 120, rate: 2184.53, window: null });
    expect(r.details).toMatchObject({
      tool: 'sglang',
      completed: 2048,
      request_throughput: 17.07,
      backend: 'sglang',
      request_rate: 'inf',
      max_concurrency: 'not set',
      ttft_ms: { mean: 61024.77, median: 60877.02, p99: 110343.9 },
      itl_ms: { mean: 106.32, median: 98.11, p95: 171.44, p99: 260.05, max: 5021.66 },
      e2e_ms: { mean: 88076.41, median: 90112.35 },
    });
  });

  it('a garbled number in the block names its line', () => {
    const { text, file } = fixture('sglang-bench.txt');
    const bad = text.replace('Output token throughput (tok/s):         2184.53', 'Output token throughput (tok/s):         21#4.5');
    expect(() => sglangAdapter.read(bad, { file })).toThrowError('sglang-bench.txt:19: Output token throughput (tok/s) is not a number: "21#4.5"');
  });
});

describe('SGLang bench_offline_throughput block', () => {
  it('is recognised automatically and by name: output tokens over the benchmark duration, last generation rate beside it', () => {
    const { text, file } = fixture('sglang-offline.txt');
    expect(detectAdapter(text)?.name).toBe('sglang');
    for (const adapter of ['auto', 'sglang']) {
      const r = readThroughput(text, { file, adapter });
      expect(r).toMatchObject({ adapter: 'sglang', units: 'tokens', count: 195820, seconds: 41.87, rate: 4676.86, window: null });
      expect(r.window_derived).toMatch(/no absolute time/);
      expect(r.details).toMatchObject({ tool: 'sglang', benchmark: 'bench_offline_throughput', backend: 'engine', completed: 1000, last_gen_throughput: 812.44, total_token_throughput: 11892.48 });
    }
  });
  it('names the line of a value that is not a number', () => {
    const { text, file } = fixture('sglang-offline.txt');
    const bad = text.replace('812.44', '81x.44');
    expect(() => readThroughput(bad, { file, adapter: 'sglang' })).toThrowError(/sglang-offline.txt:\d+: Last generation throughput \(tok\/s\) is not a number/);
  });
});

describe('vLLM bench serve block', () => {
  it('reads output throughput, TTFT/TPOT/ITL/E2EL', () => {
    const { text, file } = fixture('vllm-bench.txt');
    expect(detectAdapter(text)?.name).toBe('vllm');
    const r = vllmAdapter.read(text, { file });
    expect(r).toMatchObject({ adapter: 'vllm', count: 128000, seconds: 125.5, rate: 1019.92 });
    expect(r.details).toMatchObject({
      tool: 'vllm',
      completed: 1000,
      failed: 0,
      request_rate: 8,
      ttft_ms: { mean: 92.41, median: 85.1, p99: 210.77 },
      tpot_ms: { mean: 30.12, median: 29.8, p99: 41.35 },
      itl_ms: { mean: 30.05, median: 27.91, p99: 88.4 },
      e2e_ms: { mean: 3917.66, median: 3880.12, p99: 5102.93 },
    });
  });
});

describe('serving JSON', () => {
  it('SGLang JSON lines: the last record', () => {
    const { text, file } = fixture('sglang-results.jsonl');
    expect(detectAdapter(text)?.name).toBe('serving-json');
    const r = readThroughput(text, { file });
    expect(r).toMatchObject({ adapter: 'serving-json', count: 262144, seconds: 120, rate: 2184.533333 });
    expect(r.details).toMatchObject({ tool: 'sglang', records: 2, record_line: 2, completed: 2048, e2e_ms: { mean: 88076.41, p99: 118220.7 } });
  });

  it('vLLM saved result (one JSON document)', () => {
    const { text, file } = fixture('vllm-result.json');
    const r = servingJsonAdapter.read(text, { file });
    expect(r).toMatchObject({ count: 128000, seconds: 125.5, rate: 1019.920319 });
    expect(r.details).toMatchObject({ tool: 'vllm', completed: 1000, model: 'meta-llama/Meta-Llama-3-70B', ttft_ms: { mean: 92.41 }, e2e_ms: { p99: 5102.93 } });
  });

  it('a broken JSON line names its line', () => {
    const { text } = fixture('sglang-results.jsonl');
    const lines = text.split('\n');
    lines.splice(1, 0, '{"duration": 12.0, "output_throughput": ');
    expect(() => servingJsonAdapter.read(lines.join('\n'), { file: 'r.jsonl' })).toThrowError(/^r\.jsonl:2: not a JSON line/);
  });
});
