import { describe, expect, it } from 'vitest';
import { formatProtocolEvent, LineSplitter, parseProtocolLine } from '../../src/shared/protocol';

describe('line protocol', () => {
  it('parses each event kind and round-trips through the formatter', () => {
    const events = [
      { ev: 'start', t: 1, workload: 'vit_l_16', units: 'images', gpus: 2, batch_size: 128 },
      { ev: 'phase', t: 2, name: 'measure' },
      { ev: 'step', t: 3, n: 7, units: 256, dt: 0.5 },
      { ev: 'metric', t: 4, name: 'loss', value: 2.5 },
      { ev: 'summary', t: 5, units: 1000, seconds: 10, rate: 100 },
      { ev: 'error', t: 6, message: 'CUDA out of memory', kind: 'oom' },
    ] as const;
    for (const e of events) {
      const parsed = parseProtocolLine(formatProtocolEvent(e));
      expect(parsed).toEqual({ kind: 'event', event: e });
    }
  });

  it('fills defaults and accepts a prefix after other text and a trailing CR', () => {
    expect(parseProtocolLine('[rank0] 12:00:01 @caplab {"ev":"start","t":1,"workload":"x","units":"tokens"}\r')).toEqual({
      kind: 'event',
      event: { ev: 'start', t: 1, workload: 'x', units: 'tokens', gpus: 1 },
    });
  });

  it('keeps ordinary lines as text', () => {
    expect(parseProtocolLine('Epoch 1: loss 2.3')).toEqual({ kind: 'text', text: 'Epoch 1: loss 2.3' });
  });

  it('reports garbage after the prefix with the field at fault, never throwing', () => {
    expect(parseProtocolLine('@caplab {not json')).toMatchObject({ kind: 'invalid', error: 'not JSON after @caplab' });
    expect(parseProtocolLine('@caplab {"ev":"step","t":1,"n":1,"units":-3,"dt":1}')).toMatchObject({ kind: 'invalid', error: expect.stringMatching(/^units:/) });
    expect(parseProtocolLine('@caplab {"ev":"teleport","t":1}')).toMatchObject({ kind: 'invalid' });
    expect(parseProtocolLine('@caplab {"ev":"step","t":1,"n":1,"units":3,"dt":0}')).toMatchObject({ kind: 'invalid', error: expect.stringMatching(/^dt:/) });
  });

  it('splits a chunked stream into lines and keeps the unfinished tail', () => {
    const s = new LineSplitter();
    expect(s.push('ab')).toEqual([]);
    expect(s.push('c\nde')).toEqual(['abc']);
    expect(s.push('f\n\ng')).toEqual(['def', '']);
    expect(s.flush()).toEqual(['g']);
    expect(s.flush()).toEqual([]);
  });
});
