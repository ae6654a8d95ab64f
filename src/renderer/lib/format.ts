export { formatDuration, formatWatts } from '../../shared/units';
export { colorFor, fmt, sig } from '../../shared/format';

export function dateTime(epochS: number | null | undefined): string {
  if (epochS == null) return '–';
  const d = new Date(epochS * 1000);
  return d.toLocaleString('sv-SE').slice(0, 16);
}
