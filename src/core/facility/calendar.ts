/** Arrival-rate multiplier for every hour of the horizon from hour-of-day, weekday (Monday first) and month weights,
 * normalised to a mean of 1 so the daily count keeps its meaning. Calendar fields are read in UTC. */
export function hourlyShape(startMs: number, hours: number, hourOfDay: readonly number[], weekday: readonly number[], month: readonly number[]): Float64Array {
  const out = new Float64Array(hours);
  let sum = 0;
  // UTC days are 24 whole hours, so hour of day and weekday follow from the hour count; the month takes a Date,
  // made once a month (a Date per day or hour makes this setup loop costly to run and to compile).
  let day = NaN;
  let dayW = 0;
  let monthW = 0;
  let monthEndDay = -Infinity;
  for (let h = 0; h < hours; h++) {
    const ms = startMs + h * 3_600_000;
    const hourNo = Math.floor(ms / 3_600_000);
    const dayNo = Math.floor(hourNo / 24);
    if (dayNo !== day) {
      day = dayNo;
      // 1970-01-01 was a Thursday: weekday 3 counting from Monday.
      dayW = weekday[(((dayNo + 3) % 7) + 7) % 7]!;
      if (dayNo >= monthEndDay) {
        const d = new Date(dayNo * 86_400_000);
        monthW = month[d.getUTCMonth()]!;
        monthEndDay = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1) / 86_400_000;
      }
    }
    const v = hourOfDay[hourNo - dayNo * 24]! * dayW * monthW;
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
