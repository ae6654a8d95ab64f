import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Sample } from '../../src/shared/device';
import { pollSamples, SampleHistory } from '../../src/renderer/state/idle';
import { createPtyWriter, PTY_CHUNK, splitChunks } from '../../src/renderer/lib/pty-input';

const sample = (t: number, power_w: number): Sample => ({
  device_id: 'sim:0', t, power_w, power_kind: 'instant', power_avg_w: null, energy_mj: null, sm_clock_mhz: 345, mem_clock_mhz: null,
  temp_c: 35, util_gpu: null, util_mem: null, mem_used_mb: null, limit_w: 700, throttle_reasons: null,
});

describe('idle device readings', () => {
  it('keep a bounded history and skip repeated readings', () => {
    const h = new SampleHistory(5);
    for (let t = 1; t <= 8; t++) h.add([sample(t, 70 + t)]);
    h.add([sample(8, 99)]);
    const rec = h.get('sim:0')!;
    expect(rec.power_w.length).toBe(5);
    expect(rec.power_w.decimated(100).t).toEqual([4, 5, 6, 7, 8]);
    expect(h.latest.get('sim:0')!.power_w).toBe(78);
    expect(h.lastT).toBe(8);
    h.reset();
    expect(h.get('sim:0')).toBeUndefined();
  });

  describe('polling', () => {
    beforeEach(() => vi.useFakeTimers());
    afterEach(() => vi.useRealTimers());

    it('asks about once a second, never overlapping, only while active, and stops', async () => {
      let active = true;
      let calls = 0;
      let inFlight = 0;
      let maxInFlight = 0;
      const got: Sample[][] = [];
      const stop = pollSamples({
        intervalMs: 1000,
        active: () => active,
        sample: async () => {
          calls++;
          inFlight++;
          maxInFlight = Math.max(maxInFlight, inFlight);
          await new Promise((r) => setTimeout(r, 1500)); // slower than the interval
          inFlight--;
          return [sample(calls, 70)];
        },
        onSamples: (s) => got.push(s),
      });
      await vi.advanceTimersByTimeAsync(5100);
      expect(calls).toBe(3); // 0, 2.5, 5.0 s: the next reading waits for the previous one
      expect(maxInFlight).toBe(1);
      active = false; // a sweep streams samples, or the page is hidden
      await vi.advanceTimersByTimeAsync(5000);
      const paused = calls;
      expect(paused).toBeLessThanOrEqual(4);
      await vi.advanceTimersByTimeAsync(5000);
      expect(calls).toBe(paused);
      active = true;
      await vi.advanceTimersByTimeAsync(1500);
      expect(calls).toBe(paused + 1);
      stop();
      const n = got.length;
      await vi.advanceTimersByTimeAsync(10_000);
      expect(calls).toBe(paused + 1);
      expect(got.length).toBe(n); // the reading in flight at stop() is dropped
    });

    it('backs off after an error', async () => {
      let calls = 0;
      const errors: unknown[] = [];
      const stop = pollSamples({ intervalMs: 1000, active: () => true, sample: () => (calls++, Promise.reject(new Error('no backend'))), onSamples: () => undefined, onError: (e) => errors.push(e) });
      await vi.advanceTimersByTimeAsync(6000);
      expect(calls).toBe(2); // 0 s, then 5 s later
      expect(errors).toHaveLength(2);
      stop();
    });
  });
});

describe('terminal input', () => {
  it('sends keystrokes in order, one call at a time, coalescing what queued meanwhile', async () => {
    const sent: string[] = [];
    const states: string[] = [];
    let release: (() => void) | null = null;
    const w = createPtyWriter(
      (d) => {
        sent.push(d);
        return new Promise((r) => (release = () => r({ written: true })));
      },
      (s) => states.push(s),
    );
    for (const ch of 'secret\r') w.write(ch);
    expect(sent).toEqual(['s']);
    release!();
    await vi.waitFor(() => expect(sent).toEqual(['s', 'ecret\r']));
    release!();
    await vi.waitFor(() => expect(states.at(-1)).toBe('delivered'));
    w.close();
    w.write('x');
    expect(sent).toHaveLength(2);
  });

  it('reports a missing workload and errors, and splits long pastes at the contract limit', async () => {
    const states: string[] = [];
    const sent: string[] = [];
    let written = false;
    const w = createPtyWriter(
      async (d) => {
        sent.push(d);
        if (d === 'boom') throw new Error('HTTP 500');
        return { written };
      },
      (s) => states.push(s),
    );
    w.write('a');
    await vi.waitFor(() => expect(states.at(-1)).toBe('no-workload'));
    w.write('boom');
    await vi.waitFor(() => expect(states.at(-1)).toBe('error'));
    written = true;
    const paste = 'y'.repeat(PTY_CHUNK * 2 + 10);
    w.write(paste);
    await vi.waitFor(() => expect(states.at(-1)).toBe('delivered'));
    expect(sent.slice(2).map((s) => s.length)).toEqual([PTY_CHUNK, PTY_CHUNK, 10]);
    expect(splitChunks('ab\u{1F600}', 3)).toEqual(['ab', '\u{1F600}']);
  });
});
