// Hand-written scanning over decoded text: lines by indexOf, numbers by char codes. No per-line split() or
// regex, so a 10 M-row log parses without allocating a string per field (see bench/import.ts for why).

/** Longest line accepted; a longer one means binary garbage or the wrong format. */
export const MAX_LINE = 1 << 16;

export type LineHandler = (s: string, a: number, b: number, line: number) => void;

/** Splits streamed text into lines (LF or CRLF) and hands each to `onLine` as a range of a string. */
export class LineSplitter {
  private carry = '';
  line = 0;

  constructor(
    private readonly onLine: LineHandler,
    private readonly onTooLong: (line: number) => void,
  ) {}

  push(text: string): void {
    // The decoder's chunk is a flat string; scanning it directly (not carry + chunk, a cons string) keeps
    // charCodeAt on V8's fast path. Only the one line straddling two chunks is joined.
    let a = 0;
    if (this.carry.length) {
      const nl = text.indexOf('\n');
      if (nl === -1) {
        this.carry += text;
        if (this.carry.length > MAX_LINE) this.tooLong();
        return;
      }
      const joined = this.carry + text.slice(0, nl);
      this.carry = '';
      this.emit(joined, 0, joined.length);
      a = nl + 1;
    } else if (this.skipping) {
      const nl = text.indexOf('\n');
      if (nl === -1) return;
      this.skipping = false;
      a = nl + 1;
    }
    for (;;) {
      const nl = text.indexOf('\n', a);
      if (nl === -1) break;
      this.emit(text, a, nl);
      a = nl + 1;
    }
    if (a < text.length) {
      this.carry = text.slice(a);
      if (this.carry.length > MAX_LINE) this.tooLong();
    }
  }

  private emit(s: string, a: number, nl: number): void {
    let b = nl;
    if (b > a && s.charCodeAt(b - 1) === 13) b--;
    this.line++;
    if (b - a > MAX_LINE) this.onTooLong(this.line);
    else this.onLine(s, a, b, this.line);
  }

  private tooLong(): void {
    this.line++;
    this.onTooLong(this.line);
    this.carry = '';
    this.skipping = true;
  }

  /** After an over-long fragment, the rest up to the next newline belongs to the same bad line. */
  private skipping = false;

  end(): void {
    if (this.carry.length) this.emit(this.carry, 0, this.carry.length);
    this.carry = '';
  }
}

const isSpace = (c: number) => c === 32 || c === 9;

/**
 * Whether s holds `text` at a: s.startsWith(text, a) as a char loop, which V8 inlines into the per-row loops (the
 * builtin call cost ~0.1 µs a row there), comparing from the end, where consecutive log lines usually differ.
 */
export function sameAt(s: string, a: number, text: string): boolean {
  const n = text.length;
  if (a + n > s.length) return false;
  for (let i = n - 1; i >= 0; i--) if (s.charCodeAt(a + i) !== text.charCodeAt(i)) return false;
  return true;
}

export function trimStart(s: string, a: number, b: number): number {
  while (a < b && isSpace(s.charCodeAt(a))) a++;
  return a;
}
export function trimEnd(s: string, a: number, b: number): number {
  while (b > a && isSpace(s.charCodeAt(b - 1))) b--;
  return b;
}

let numEnd = 0;
/** Where the last number parsed by parseNumber ended (its unit suffix, if any, follows). */
export function lastNumberEnd(): number {
  return numEnd;
}

const POW10 = [1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18];

let decValue = 0;
let decDigits = 0;
/** Reads `[sign]digits[.digits]` from i: its value (decValue) and digit count (decDigits); returns the index after it. */
function readDecimal(s: string, i: number, b: number): number {
  let neg = false;
  let c = i < b ? s.charCodeAt(i) : 0;
  if (c === 45 || c === 43) {
    neg = c === 45;
    i++;
  }
  let int = 0;
  let digits = 0;
  while (i < b && (c = s.charCodeAt(i)) >= 48 && c <= 57) {
    int = int * 10 + (c - 48);
    digits++;
    i++;
  }
  let frac = 0;
  let fd = 0;
  if (i < b && c === 46) {
    i++;
    while (i < b && (c = s.charCodeAt(i)) >= 48 && c <= 57) {
      if (fd < 18) {
        frac = frac * 10 + (c - 48);
        fd++;
      }
      digits++;
      i++;
    }
  }
  decDigits = digits;
  const v = fd ? int + frac / POW10[fd]! : int;
  decValue = neg ? -v : v;
  return i;
}

/**
 * A decimal number in s[a, b) (surrounding blanks allowed, an optional unit suffix after a blank such as
 * "250.12 W" is ignored). NaN when the field holds no number ("[N/A]", "", garbage).
 */
export function parseNumber(s: string, a: number, b: number): number {
  a = trimStart(s, a, b);
  if (a >= b) return NaN;
  const i = readDecimal(s, a, b);
  if (decDigits === 0) return NaN;
  if (i < b) {
    const c = s.charCodeAt(i);
    if (c === 101 || c === 69) return slowNumber(s, a, b);
    // Anything after the number must be a unit separated by a blank ("250 W", "45 %").
    if (!isSpace(c)) return NaN;
  }
  numEnd = i;
  if (decDigits > 15) return slowNumber(s, a, b);
  return decValue;
}

function slowNumber(s: string, a: number, b: number): number {
  let e = a;
  while (e < b && !isSpace(s.charCodeAt(e))) e++;
  numEnd = e;
  const v = Number(s.slice(a, e));
  return Number.isFinite(v) ? v : NaN;
}

let fieldEnd = 0;
/** Where the field read by the last scanField call ended (its separator, or the end of the line). */
export function lastFieldEnd(): number {
  return fieldEnd;
}

/**
 * The number in the field that starts at a and ends at the next `sep` (or b), and that field's end (lastFieldEnd);
 * a blank `sep` (32) means fields separated by blanks (spaces or tabs), the field starting at a non-blank.
 * The common case (blanks, then a plain decimal right before the separator) is read in one pass without looking
 * for the separator first; anything else (units, exponents, `[N/A]`, long digit runs) goes through parseNumber on
 * the field, so both give the same value.
 */
export function scanField(s: string, a: number, b: number, sep: number): number {
  const start = trimStart(s, a, b);
  let i = readDecimal(s, start, b);
  let c: number;
  if (decDigits > 0 && decDigits <= 15 && (i === b || (c = s.charCodeAt(i)) === sep || (sep === 32 && c === 9))) {
    fieldEnd = i;
    numEnd = i;
    return decValue;
  }
  if (sep === 32) {
    i = start;
    while (i < b && (c = s.charCodeAt(i)) !== 32 && c !== 9) i++;
    fieldEnd = i;
  } else fieldEnd = nextSep(s, start, b, sep);
  return parseNumber(s, a, fieldEnd);
}

/** Index of the next `sep` char code in s[a, b), or b. */
export function nextSep(s: string, a: number, b: number, sep: number): number {
  const i = s.indexOf(String.fromCharCode(sep), a);
  return i === -1 || i > b ? b : i;
}

/** Splits a header or small line into trimmed fields (quotes honoured); for headers, not the hot path. */
export function splitFields(line: string, sep: string): string[] {
  const out: string[] = [];
  let cur = '';
  let q = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!;
    if (q) {
      if (ch === '"') {
        if (line[i + 1] === '"') {
          cur += '"';
          i++;
        } else q = false;
      } else cur += ch;
    } else if (ch === '"') q = true;
    else if (ch === sep) {
      out.push(cur.trim());
      cur = '';
    } else cur += ch;
  }
  out.push(cur.trim());
  return out;
}
