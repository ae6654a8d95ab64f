import { describe, expect, it } from 'vitest';
import { adapterNames, detectAdapter, readThroughput } from '../../../src/core/adapters';
import { fixture } from './helpers';

describe('auto-detection', () => {
  it.each([
    ['protocol.log', 'protocol'],
    ['protocol-nophase.log', 'protocol'],
    ['hpcai-vision.log', 'hpcai-vision'],
    ['hpcai-benchmark.csv', 'hpcai-csv'],
    ['litgpt-metrics.csv', 'litgpt'],
    ['sglang-bench.txt', 'sglang'],
    ['vllm-bench.txt', 'vllm'],
    ['sglang-results.jsonl', 'serving-json'],
    ['vllm-result.json', 'serving-json'],
    ['mllog.log', 'mllog'],
    ['sglang-offline.txt', 'sglang'],
    ['torchvision-train.log', 'rate-lines'],
  ])('%s -> %s, saying how its window was derived', (name, adapter) => {
    const { text, file } = fixture(name);
    expect(detectAdapter(text)?.name).toBe(adapter);
    const r = readThroughput(text, { file });
    expect(r.adapter).toBe(adapter);
    // Absolute windows say so; every other one says what it was derived from instead.
    expect(r.window_derived).toMatch(r.window ? /^absolute: / : /no absolute time|no window/);
  });

  it('garbage is a clear error naming the file', () => {
    const { text, file } = fixture('garbage.log');
    expect(() => readThroughput(text, { file })).toThrowError(/^garbage\.log:1: cannot tell which tool wrote this \(first line: "PK\?\?\?\?.*"\); pass --adapter with one of protocol, mllog/);
  });

  it('empty input and unknown adapters', () => {
    expect(() => readThroughput('  \n', { file: 'e.log' })).toThrowError('e.log:1: empty file');
    expect(() => readThroughput('x', { file: 'e.log', adapter: 'nope' })).toThrowError(/e\.log: unknown adapter "nope"; known: auto, protocol/);
  });

  it('every adapter has a unique name', () => {
    expect(new Set(adapterNames).size).toBe(adapterNames.length);
  });

  it('forcing a wrong adapter gives that adapter\'s clear error', () => {
    const { text } = fixture('litgpt-metrics.csv');
    expect(() => readThroughput(text, { file: 'm.csv', adapter: 'mllog' })).toThrowError('m.csv: no :::MLLOG lines found');
  });
});

describe('rate lines in words (PyTorch-style "img/s: 2488.35", "1234.5 images/sec"), issue #14 finding 8', () => {
  it('a torchvision reference training log is recognised without a pattern, the first (warm-up) line dropped', () => {
    const { text, file } = fixture('torchvision-train.log');
    expect(detectAdapter(text)?.name).toBe('rate-lines');
    const r = readThroughput(text, { file });
    expect(r).toMatchObject({ adapter: 'rate-lines', units: 'images', count: null, seconds: null, window: null });
    expect(r.rate).toBeCloseTo((2488.35 + 2511.02 + 2497.8 + 2503.91) / 4, 6);
    expect(r.details).toMatchObject({ lines: 4, skipped: 1, first_line: 7 });
    expect(String(r.details.window_note)).toMatch(/no absolute times/);
  });
  it('"N images/sec" after the number, and tokens', () => {
    const text = 'step 1 loss 2.1 900.0 images/sec\nstep 2 loss 2.0 1,210.5 images/sec\nstep 3 loss 1.9 1,190.5 images/sec\n';
    expect(readThroughput(text, { file: 'x.log' })).toMatchObject({ adapter: 'rate-lines', units: 'images', rate: 1200.5 });
    expect(readThroughput('tokens/sec: 100\ntokens/sec: 30000\ntokens/sec: 31000\n', { file: 'y.log' })).toMatchObject({ units: 'tokens', rate: 30500 });
  });
  it('a log without rates, or with rates in two units, is a clear error', () => {
    expect(() => readThroughput('hello\n', { file: 'z.log', adapter: 'rate-lines' })).toThrowError(/z\.log: no line reports a rate/);
    expect(() => readThroughput('a 1 images/sec\nb 2 images/sec\nc 3 tokens/sec\n', { file: 'w.log', adapter: 'rate-lines', skip: 0 })).toThrowError(/several units/);
  });
});
