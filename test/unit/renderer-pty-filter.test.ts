import { describe, expect, it } from 'vitest';
import { ProtocolLineFilter } from '../../src/renderer/lib/pty-filter';

const output = 'epoch 1 loading data\r\n@caplab {"ev":"step","t":1.5,"n":1,"units":128,"dt":0.4}\r\n12:00:01 INFO @caplab {"ev":"step","t":2,"n":2,"units":128,"dt":0.4}\r\nstep 2 loss 0.93\r\n';

describe('protocol lines in the workload terminal', () => {
  it('hides protocol lines and keeps the workload\'s own output, however the output is chunked', () => {
    for (const size of [1, 3, 7, 1000]) {
      const f = new ProtocolLineFilter(false);
      let shown = '';
      for (let i = 0; i < output.length; i += size) shown += f.push(output.slice(i, i + size));
      expect(shown.replace(/ +\n/g, '\n')).toBe('epoch 1 loading data\r\n12:00:01 INFO\nstep 2 loss 0.93\r\n');
      expect(f.hidden).toBe(2);
    }
  });

  it('shows them dimmed when asked', () => {
    const f = new ProtocolLineFilter(true);
    const shown = f.push(output);
    expect(shown).toContain('\x1b[2m@caplab {"ev":"step","t":1.5');
    expect(shown).toContain('step 2 loss 0.93');
    expect(f.hidden).toBe(0);
  });

  it('passes a partial line through at once unless it could become a protocol line', () => {
    const f = new ProtocolLineFilter(false);
    expect(f.push('Password: ')).toBe('Password: ');
    expect(f.push('@cap')).toBe('');
    // The prompt's line ends where the hidden protocol line ended.
    expect(f.push('lab {"ev":"end"}\n')).toBe('\n');
    expect(f.push('@caplab {"ev":"end"}\n')).toBe('');
  });
});
