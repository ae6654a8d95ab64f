import type { XY } from '../../core/decimate';

/** A tiny SVG line (no Plotly) for device cards. */
export function Sparkline({ data, width = 160, height = 36, color = 'currentColor', min, max, label }: { data: XY; width?: number; height?: number; color?: string; min?: number; max?: number; label: string }) {
  const vals = data.v.filter((x): x is number => x != null);
  if (vals.length < 2) return <svg className="spark" width={width} height={height} role="img" aria-label={`${label}: no data yet`} />;
  const lo = min ?? Math.min(...vals);
  const hi = max ?? Math.max(...vals);
  const t0 = data.t[0]!;
  const t1 = data.t[data.t.length - 1]!;
  const sx = (t: number) => (t1 > t0 ? ((t - t0) / (t1 - t0)) * (width - 2) + 1 : 1);
  const sy = (v: number) => height - 1 - (hi > lo ? ((v - lo) / (hi - lo)) * (height - 2) : (height - 2) / 2);
  let d = '';
  let pen = false;
  data.t.forEach((t, i) => {
    const v = data.v[i];
    if (v == null) {
      pen = false;
      return;
    }
    d += `${pen ? 'L' : 'M'}${sx(t).toFixed(1)},${sy(v).toFixed(1)}`;
    pen = true;
  });
  return (
    <svg className="spark" width={width} height={height} role="img" aria-label={label}>
      <path d={d} fill="none" stroke={color} strokeWidth={1.5} />
    </svg>
  );
}
