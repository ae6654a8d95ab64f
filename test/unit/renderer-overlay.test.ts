// The Overlay page's figures from an engine answer: a trace per source (and GPU) in each metric it recorded, none
// where it did not (said instead), equal phases shaded once, and the throughput axis in the sources' own units.
import { describe, expect, it } from 'vitest';
import { overlayFigures, phaseShapes, throughputUnit } from '../../src/renderer/pages/overlay/figure';
import { OverlaySource } from '../../src/shared/overlay';

const series = (v: number) => ({ t: [-1, 0, 1], v: [v, v, v] });
const source = (id: number, over: Partial<OverlaySource> = {}): OverlaySource =>
  OverlaySource.parse({
    source: { kind: 'run', id }, label: `#1 s · w · ${id} W · r1`, sweep_id: 1, sweep_name: 's', dataset_id: null, dataset_name: null, workload: 'w', cap_w: id, repetition: 1,
    simulated: true, window_start: 1000, phases: [{ phase: 'warmup', from: -10, to: 0 }, { phase: 'measure', from: 0, to: 30 }],
    devices: [{ device_id: 'h/sim:0/x', name: 'H100', power_w: series(id), sm_clock_mhz: series(1500), temp_c: series(50) }],
    throughput: series(100), units: 'images', missing: [], error: null, ...over,
  });

describe('overlay figures', () => {
  it('draws each source in every metric it recorded and says which did not record one', () => {
    const noClock = source(400, { missing: [{ metric: 'sm_clock_mhz', why: "run 400's samples have no SM clock" }] });
    const failed = source(999, { error: 'no run 999 in this database', devices: [], phases: [] });
    const figs = overlayFigures([source(300), noClock, failed]);
    expect(figs.map((f) => [f.metric, f.data.length])).toEqual([['power_w', 2], ['sm_clock_mhz', 1], ['temp_c', 2], ['throughput', 2]]);
    expect(figs[1]!.missing).toEqual([{ label: noClock.label, why: "run 400's samples have no SM clock" }]);
    expect(figs[0]!.data.map((d) => d.name)).toEqual(['#1 s · w · 300 W · r1', '#1 s · w · 400 W · r1']);
    expect(figs[3]!.unit).toBe('images/s per GPU');
  });

  it('names each GPU of a source of several', () => {
    const two = source(300, { devices: [0, 1].map((k) => ({ device_id: `h/sim:${k}/x`, name: 'H100', power_w: series(300), sm_clock_mhz: series(1), temp_c: series(1) })) });
    expect(overlayFigures([two])[0]!.data.map((d) => d.name)).toEqual(['#1 s · w · 300 W · r1 · GPU 0 H100', '#1 s · w · 300 W · r1 · GPU 1 H100']);
  });

  it('shades equal phases once and different ones each', () => {
    const other = source(400, { phases: [{ phase: 'warmup', from: -12, to: 0 }, { phase: 'measure', from: 0, to: 30.04 }] });
    expect(phaseShapes([source(300), source(500), other]).map((s) => [s.x0, s.x1])).toEqual([[-10, 0], [0, 30], [-12, 0]]);
  });

  it('labels a throughput axis of mixed units as units', () => {
    expect(throughputUnit([source(300), source(400, { units: 'tokens' })])).toBe('units/s per GPU');
  });
});
