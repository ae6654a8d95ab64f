/** Text from a database or plan shown on a terminal: control characters (escape sequences) shown as \uXXXX. */
export function printable(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Plain-text table with right-aligned numbers, for human output. */
export function table(headers: string[], rows: (string | number | null)[][]): string {
  const cells = rows.map((r) => r.map((c) => (c === null ? '–' : printable(String(c)))));
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((r) => r[i]!.length)));
  const fmt = (r: string[]) => r.map((c, i) => (/^[-+]?[\d.]+$/.test(c) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join('  ');
  return [fmt(headers), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.map(fmt)].join('\n');
}

export function fixed(v: number | null | undefined, digits: number): string | null {
  return v == null || !Number.isFinite(v) ? null : v.toFixed(digits);
}

/** "1234.5 ± 61.7": a value with its stated uncertainty (the value alone when there is none). */
export function withBound(v: number | null | undefined, u: number | null | undefined, digits = 1): string | null {
  const value = fixed(v, digits);
  const bound = fixed(u, digits);
  return value === null || bound === null ? value : `${value} ± ${bound}`;
}

/** A one-line progress bar redrawn in place on a terminal. */
export function progressBar(fraction: number, width: number, label: string): string {
  const f = Math.max(0, Math.min(1, fraction));
  const filled = Math.round(f * width);
  return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${(f * 100).toFixed(0).padStart(3)}% ${label}`;
}
