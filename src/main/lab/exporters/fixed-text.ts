// Decimal text of quantised sample values, written as bytes straight into a buffer. Stored values are integers q
// with a known number of decimals (value = q / 10^decimals, |q| < 2^51), so integer arithmetic gives the same text
// JS's String(q / 10^decimals) would (its shortest exact form: the 10^-decimals grid is finer than the doubles'
// spacing there, so no shorter decimal names the same number) at a fraction of the cost, and no strings.

/** "00".."99" as byte pairs: two digits per table look-up. */
const PAIRS = new Uint8Array(200);
for (let i = 0; i < 100; i++) {
  PAIRS[i * 2] = 48 + Math.floor(i / 10);
  PAIRS[i * 2 + 1] = 48 + (i % 10);
}
const POW10 = Array.from({ length: 16 }, (_, k) => 10 ** k);

/** How many digits 0 <= n < 2^31 has. */
function digitCount(n: number): number {
  if (n < 100000) return n < 100 ? (n < 10 ? 1 : 2) : n < 1000 ? 3 : n < 10000 ? 4 : 5;
  return n < 10000000 ? (n < 1000000 ? 6 : 7) : n < 100000000 ? 8 : n < 1000000000 ? 9 : 10;
}

/** Digits of 0 <= n < 2^31, exactly `width` of them (leading zeros) when width > 0, else as many as needed. */
function writeSmall(buf: Uint8Array, pos: number, n: number, width: number): number {
  let x = n | 0;
  const stop = pos + (width === 0 ? digitCount(x) : width);
  let end = stop;
  while (x >= 100) {
    const q = (x / 100) | 0;
    const r = (x - q * 100) << 1;
    x = q;
    buf[--end] = PAIRS[r + 1]!;
    buf[--end] = PAIRS[r]!;
  }
  if (x >= 10) {
    buf[--end] = PAIRS[(x << 1) + 1]!;
    buf[--end] = PAIRS[x << 1]!;
  } else buf[--end] = 48 + x;
  while (end > pos) buf[--end] = 48;
  return stop;
}

/** floor(q / p) and the remainder, exact for integers below 2^53 (the quotient's rounding is corrected). */
function divide(q: number, p: number): [number, number] {
  const whole = Math.floor(q / p);
  const frac = q - whole * p;
  return frac < 0 ? [whole - 1, frac + p] : frac >= p ? [whole + 1, frac - p] : [whole, frac];
}

/** Digits of an integer 0 <= n < 2^53, `width` of them (zero-padded) when width > 0. */
function writeUint(buf: Uint8Array, pos: number, n: number, width: number): number {
  if (n < 2147483648 && width <= 10) return writeSmall(buf, pos, n, width);
  let hi = Math.floor(n / 1e8);
  let lo = n - hi * 1e8;
  if (lo < 0) {
    // n / 1e8 rounded up to the next integer
    hi--;
    lo += 1e8;
  }
  pos = writeUint(buf, pos, hi, width > 8 ? width - 8 : 0);
  return writeSmall(buf, pos, lo, 8);
}

/** The text of q / 10^decimals (q an integer, |q| < 2^51) at buf[pos]; returns the new position. At most 22 bytes. */
export function writeFixed(buf: Uint8Array, pos: number, q: number, decimals: number): number {
  if (q < 0) {
    buf[pos++] = 45;
    q = -q;
  }
  if (decimals === 0) return q < 2147483648 ? writeSmall(buf, pos, q, 0) : writeUint(buf, pos, q, 0);
  const p = POW10[decimals]!;
  const [whole, frac0] = divide(q, p);
  let frac = frac0;
  pos = writeUint(buf, pos, whole, 0);
  if (frac === 0) return pos;
  let digits = decimals;
  while (frac % 10 === 0) {
    frac /= 10;
    digits--;
  }
  buf[pos++] = 46;
  return writeUint(buf, pos, frac, digits);
}

/** Decimals of a stored scale (a power of ten). */
export function decimalsOf(scale: number): number {
  const d = Math.round(Math.log10(scale));
  if (POW10[d] !== scale) throw new Error(`scale ${scale} is not a power of ten`);
  return d;
}

/**
 * ISO-8601 UTC text of q microseconds since the epoch (every decimal kept, trailing zeros dropped). The date part
 * changes once a second, so it is cached: one Date per second of samples, not one per row.
 */
export class IsoTimeWriter {
  private second = NaN;
  private prefix = new Uint8Array(19);

  write(buf: Uint8Array, pos: number, q: number, decimals: number): number {
    const p = POW10[decimals]!;
    const [whole, frac0] = divide(q, p);
    let frac = frac0;
    if (whole !== this.second) {
      this.second = whole;
      this.prefix = Buffer.from(new Date(whole * 1000).toISOString().slice(0, 19), 'latin1');
    }
    buf.set(this.prefix, pos);
    pos += this.prefix.length;
    if (frac !== 0) {
      let digits = decimals;
      while (frac % 10 === 0) {
        frac /= 10;
        digits--;
      }
      buf[pos++] = 46;
      pos = writeUint(buf, pos, frac, digits);
    }
    buf[pos++] = 90;
    return pos;
  }
}
