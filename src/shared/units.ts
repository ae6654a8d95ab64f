// Unit helpers shared by engine and UI. Power in W, energy in J unless a name says otherwise.
export const mJ_PER_J = 1000;

export function joulesFromMillijoules(mj: number): number {
  return mj / mJ_PER_J;
}

export function formatWatts(w: number | null | undefined, digits = 0): string {
  return w == null || !Number.isFinite(w) ? '–' : `${w.toFixed(digits)} W`;
}

export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds)) return '–';
  const s = Math.max(0, Math.round(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const r = s % 60;
  if (h > 0) return `${h}h ${String(m).padStart(2, '0')}m`;
  if (m > 0) return `${m}m ${String(r).padStart(2, '0')}s`;
  return `${r}s`;
}
