/** Arrival-rate multiplier for every hour of the horizon from hour-of-day, weekday (Monday first) and month weights,
 * normalised to a mean of 1 so the daily count keeps its meaning. Calendar fields are read in UTC. */
export function hourlyShape(startMs: number, hours: number, hourOfDay: readonly number[], weekday: readonly number[], month: readonly number[]): Float64Array {
  const out = new Float64Array(hours);
  let sum = 0;
  for (let h = 0; h < hours; h++) {
    const d = new Date(startMs + h * 3_600_000);
    const v = hourOfDay[d.getUTCHours()]! * weekday[(d.getUTCDay() + 6) % 7]! * month[d.getUTCMonth()]!;
    out[h] = v;
    sum += v;
  }
  if (sum <= 0) return out.fill(1);
  const scale = hours / sum;
  for (let h = 0; h < hours; h++) out[h]! *= scale;
  return out;
}

export function parseStart(iso: string, field = 'start'): number {
  const ms = Date.parse(iso);
  if (!Number.isFinite(ms)) throw new Error(`${field}: not a date: "${iso}" (use ISO 8601, e.g. 2025-01-01T00:00:00Z)`);
  return ms;
}
