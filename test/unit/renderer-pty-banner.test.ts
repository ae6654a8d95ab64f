import { describe, expect, it } from 'vitest';
import { PtyBuffer } from '../../src/renderer/state/live';

describe('workload terminal banner', () => {
  it('names a run as the rest of the app does (r1: workload at cap), with the database id in brackets', () => {
    const buf = new PtyBuffer();
    buf.label(12, 'r1: vit_l_16 at 300 W');
    buf.push({ sweep_id: 3, run_id: 12, data: 'step 1\r\n' });
    buf.push({ sweep_id: 3, run_id: 13, data: 'step 1\r\n' });
    const text = buf.text();
    expect(text).toContain('── r1: vit_l_16 at 300 W (run #12 of the database) ──');
    expect(text).toContain('── run #13 ──');
    expect(text.indexOf('r1: vit_l_16')).toBeLessThan(text.indexOf('run #13'));
  });

  it('names a tuning session\'s job (run 0: one process over all its visits) by its label alone', () => {
    const buf = new PtyBuffer();
    buf.label(0, 'the job of tuning session #7');
    buf.push({ sweep_id: 7, run_id: 0, data: 'epoch 1\r\n' });
    expect(buf.text()).toContain('── the job of tuning session #7 ──');
    expect(buf.text()).not.toContain('run #0');
  });

  it('forgets the labels of a cleared sweep', () => {
    const buf = new PtyBuffer();
    buf.label(12, 'r2: resnet50 at 400 W');
    buf.clear();
    buf.push({ sweep_id: 4, run_id: 12, data: 'x' });
    expect(buf.text()).not.toContain('resnet50');
  });
});
