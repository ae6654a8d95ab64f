import { describe, expect, it } from 'vitest';
import { compileUserPattern, regexAdapter } from '../../../src/core/adapters/regex';
import { readThroughput } from '../../../src/core/adapters';
import { fixture } from './helpers';

describe('generic regex adapter', () => {
  const pattern = String.raw`(?P<units>\d+) tokens in (?P<seconds>[\d.]+) s`;

  it('sums units and seconds (Python-style groups accepted)', () => {
    const { text, file } = fixture('regex-custom.log');
    const r = readThroughput(text, { file, adapter: 'regex', pattern, units: 'tokens' });
    expect(r).toMatchObject({ adapter: 'regex', units: 'tokens', count: 5 * 512, seconds: 3, window: null });
    expect(r.rate).toBeCloseTo(2560 / 3, 9);
  });

  it('skip drops the warm-up lines', () => {
    const { text, file } = fixture('regex-custom.log');
    const r = regexAdapter.read(text, { file, pattern, skip: 1 });
    expect(r).toMatchObject({ count: 2048, seconds: 1, rate: 2048 });
  });

  it('units + t uses the time span', () => {
    const text = ['t=1700000000.0 done=100', 't=1700000001.0 done=100', 't=1700000003.0 done=100'].join('\n');
    const r = regexAdapter.read(text, { pattern: String.raw`t=(?<t>[\d.]+) done=(?<units>\d+)` });
    expect(r).toMatchObject({ count: 200, seconds: 3, rate: 200 / 3, window: { start: 1700000000, end: 1700000003 } });
  });

  it('rate only: mean of the rates', () => {
    const r = regexAdapter.read('speed 10 it/s\nspeed 20 it/s\n', { pattern: String.raw`speed (?<rate>[\d.]+)` });
    expect(r).toMatchObject({ count: null, seconds: null, rate: 15 });
  });

  it('bad patterns are explained', () => {
    expect(() => compileUserPattern('(?<units>\\d+')).toThrowError(/invalid regular expression/);
    expect(() => compileUserPattern('(?<units>\\d+) items')).toThrowError(/needs named groups units\+seconds, units\+t, or rate/);
    expect(() => compileUserPattern('(?<speed>\\d+)')).toThrowError(/unknown named group\(s\) speed/);
  });

  it('a captured value that is not a number names the line', () => {
    expect(() => regexAdapter.read('a\nrate=1.2.3\n', { file: 'x.log', pattern: String.raw`rate=(?<rate>[\d.]+)` })).toThrowError('x.log:2: group rate matched "1.2.3", not a number');
  });
});
