import { describe, expect, it } from 'vitest';
import { ProtocolLineFilter } from '../../src/renderer/lib/pty-filter';

const output =
  'epoch 1 loading data\r\n' +
  '@caplab {"ev":"start","t":1,"workload":"vit_l_16","units":"images","gpus":1,"batch_size":128}\r\n' +
  '@caplab {"ev":"step","t":1.5,"n":1,"units":128,"dt":0.4}\r\n' +
  '12:00:01 INFO @caplab {"ev":"step","t":2,"n":2,"units":128,"dt":0.4}\r\n' +
  'step 2 loss 0.93\r\n' +
  '@caplab {"ev":"phase","t":2,"name":"measure"}\r\n';

describe('protocol lines in the workload terminal', () => {
  it('keeps the workload\'s own output, folds start and phases into words and hides steps, however the output is chunked', () => {
    for (const size of [1, 3, 7, 1000]) {
      const f = new ProtocolLineFilter(false);
      let shown = '';
      for (let i = 0; i < output.length; i += size) shown += f.push(output.slice(i, i + size));
      expect(shown.replace(/ +\n/g, '\n')).toBe(
        'epoch 1 loading data\r\n\x1b[2m· caplab started vit_l_16: images on 1 GPU, batch 128\x1b[0m\n12:00:01 INFO\nstep 2 loss 0.93\r\n\x1b[2m· caplab phase: measure\x1b[0m\n',
      );
      expect(shown).not.toContain('@caplab');
      expect(f.hidden).toBe(2);
    }
  });

  it('shows them as printed, dimmed, when asked', () => {
    const f = new ProtocolLineFilter(true);
    const shown = f.push(output);
    expect(shown).toContain('\x1b[2m@caplab {"ev":"step","t":1.5');
    expect(shown).toContain('step 2 loss 0.93');
    expect(f.hidden).toBe(0);
  });

  it('passes a partial line through at once unless it could become a protocol line; keeps malformed ones', () => {
    const f = new ProtocolLineFilter(false);
    expect(f.push('Password: ')).toBe('Password: ');
    expect(f.push('@cap')).toBe('');
    // The prompt's line ends where the hidden protocol line ended.
    expect(f.push('lab {"ev":"step","t":1,"n":1,"units":1,"dt":1}\n')).toBe('\n');
    expect(f.push('@caplab {"ev":"step","t":2,"n":2,"units":1,"dt":1}\n')).toBe('');
    expect(f.push('@caplab not json\n')).toBe('@caplab not json\n');
  });
});
