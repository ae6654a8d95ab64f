/** A half-circle gauge in SVG: value between min and max, an optional mark (e.g. the power limit). */
export function Gauge({ label, value, min, max, unit, mark, digits = 0, testId }: { label: string; value: number | null; min: number; max: number; unit: string; mark?: number | null; digits?: number; testId?: string }) {
  const r = 40;
  const cx = 50;
  const cy = 50;
  const frac = (v: number) => Math.max(0, Math.min(1, (v - min) / (max - min || 1)));
  const pt = (f: number) => {
    const a = Math.PI * (1 - f);
    return [cx + r * Math.cos(a), cy - r * Math.sin(a)] as const;
  };
  const arc = (f: number) => {
    const [x, y] = pt(f);
    return `M${cx - r},${cy} A${r},${r} 0 0 1 ${x.toFixed(2)},${y.toFixed(2)}`;
  };
  const f = value == null ? 0 : frac(value);
  const markPt = mark != null ? pt(frac(mark)) : null;
  return (
    <figure className="gauge" data-testid={testId} data-value={value ?? ''} aria-label={`${label} ${value == null ? 'unknown' : value.toFixed(digits) + ' ' + unit}`}>
      <svg viewBox="0 0 100 58" width={120} height={70}>
        <path d={arc(1)} className="gauge-track" fill="none" strokeWidth={8} />
        {value != null && <path d={arc(f)} className="gauge-value" fill="none" strokeWidth={8} />}
        {markPt && <circle cx={markPt[0]} cy={markPt[1]} r={3.5} className="gauge-mark" />}
        <text x={50} y={48} textAnchor="middle" className="gauge-text">
          {value == null ? '–' : value.toFixed(digits)}
        </text>
      </svg>
      <figcaption>
        {label} <span className="muted">{unit}</span>
      </figcaption>
    </figure>
  );
}
