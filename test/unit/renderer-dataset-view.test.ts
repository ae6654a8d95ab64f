import { describe, expect, it } from 'vitest';
import { MAX_LABELS, segmentDecorations } from '../../src/renderer/lib/dataset-view';
import { Segment } from '../../src/shared/dataset';

function seg(id: number, start: number, end: number, origin: Segment['origin'] = 'auto'): Segment {
  return Segment.parse({ id, dataset_id: 1, label: `phase ${id}`, start, end, origin });
}

describe('dataset trace decorations', () => {
  const t0 = 1000;
  // 100 adjacent automatic phases of 10 s each, stored out of order.
  const phases = Array.from({ length: 100 }, (_, i) => seg(i + 1, t0 + i * 10, t0 + (i + 1) * 10)).reverse();

  it('one band per segment in seconds since start; adjacent segments alternate shades so their boundary shows', () => {
    const { shapes } = segmentDecorations(phases, t0, null);
    expect(shapes).toHaveLength(100);
    expect(shapes!.map((s) => s.x0)).toEqual(Array.from({ length: 100 }, (_, i) => i * 10));
    for (let i = 1; i < shapes!.length; i++) expect(shapes![i]!.fillcolor).not.toBe(shapes![i - 1]!.fillcolor);
    const brushed = segmentDecorations([seg(1, t0, t0 + 5, 'brush')], t0, null).shapes![0]!.fillcolor;
    expect(brushed).not.toBe(shapes![0]!.fillcolor);
  });

  it('labels only the segments in view, and none while too many are in view to read', () => {
    expect(segmentDecorations(phases, t0, null).annotations).toEqual([]);
    const zoomed = segmentDecorations(phases, t0, [t0 + 95, t0 + 135]).annotations!;
    expect(zoomed.map((a) => a.text)).toEqual(['phase 10', 'phase 11', 'phase 12', 'phase 13', 'phase 14']);
    // A label sits in the middle of the segment's visible part (phase 10 shows only from 95 to 100 s).
    expect(zoomed[0]!.x).toBe(97.5);
    expect(segmentDecorations(phases, t0, [t0, t0 + MAX_LABELS * 10]).annotations).toHaveLength(MAX_LABELS);
    expect(segmentDecorations(phases, t0, [t0, t0 + (MAX_LABELS + 1) * 10]).annotations).toEqual([]);
  });

  it('leaves short segments (transitions between phases) unlabelled', () => {
    // Long phases of 500 s with 10 s transitions between them.
    const segs = [seg(1, t0, t0 + 500), seg(2, t0 + 500, t0 + 510), seg(3, t0 + 510, t0 + 1010)];
    expect(segmentDecorations(segs, t0, null).annotations!.map((a) => a.text)).toEqual(['phase 1', 'phase 3']);
    // Zoomed in on the transition it is wide enough to hold its label.
    expect(segmentDecorations(segs, t0, [t0 + 490, t0 + 520]).annotations!.map((a) => a.text)).toEqual(['phase 1', 'phase 2', 'phase 3']);
  });
});
