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
  ])('%s -> %s', (name, adapter) => {
    const { text, file } = fixture(name);
    expect(detectAdapter(text)?.name).toBe(adapter);
    expect(readThroughput(text, { file }).adapter).toBe(adapter);
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
