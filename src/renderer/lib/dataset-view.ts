// The dataset page's trace decorations: segment windows as shaded bands and their labels, for the visible range.
import type { Segment } from '../../shared/dataset';

/** Per origin, two shades: neighbouring segments alternate so the boundary between adjacent phases shows. */
const FILL: Record<Segment['origin'], [string, string]> = {
  auto: ['rgba(78,154,241,0.10)', 'rgba(78,154,241,0.22)'],
  brush: ['rgba(242,142,43,0.16)', 'rgba(242,142,43,0.28)'],
  structure: ['rgba(89,161,79,0.14)', 'rgba(89,161,79,0.26)'],
};

/** More labels than this in view overlap into an unreadable strip; the shading and the table tell them apart. */
export const MAX_LABELS = 24;
/** A segment is labelled when its visible part is at least 1/MIN_LABEL_SHARE of the visible range. */
export const MIN_LABEL_SHARE = 40;

/**
 * Shapes (one band per segment, x in seconds since `t0`) and labels for the segments that overlap the visible range
 * (`range` in epoch seconds; null: all). Labels only while at most MAX_LABELS segments are in view, and only on
 * segments wide enough to hold one.
 */
export function segmentDecorations(segments: readonly Segment[], t0: number, range: [number, number] | null) {
  const sorted = [...segments].sort((a, b) => a.start - b.start);
  const shapes = sorted.map((s, i) => ({
    type: 'rect' as const,
    xref: 'x' as const,
    yref: 'paper' as const,
    x0: s.start - t0,
    x1: s.end - t0,
    y0: 0,
    y1: 1,
    line: { width: 0 },
    fillcolor: FILL[s.origin][i % 2],
    layer: 'below' as const,
  }));
  const [lo, hi] = range ?? [sorted[0]?.start ?? 0, sorted[sorted.length - 1]?.end ?? 0];
  const inView = sorted.filter((s) => s.end > lo && s.start < hi);
  // Short ones (transitions between phases) stay unlabelled: their labels would overlap their neighbours'.
  const wide = inView.filter((s) => Math.min(s.end, hi) - Math.max(s.start, lo) >= (hi - lo) / MIN_LABEL_SHARE);
  const annotations = (inView.length <= MAX_LABELS ? wide : []).map((s) => ({
    x: (Math.max(s.start, lo) + Math.min(s.end, hi)) / 2 - t0,
    y: 1,
    xref: 'x' as const,
    yref: 'paper' as const,
    yanchor: 'bottom' as const,
    text: s.label ?? `#${s.id}`,
    showarrow: false,
    font: { size: 9 },
  }));
  return { shapes, annotations };
}
