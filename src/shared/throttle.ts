/**
 * NVML clock-event (throttle) reason bits in words, for pages and reports. Bits CapLab does not know are named by
 * their hex value rather than dropped, so a newer driver's reason is still seen.
 */
const REASONS: readonly [bit: number, words: string][] = [
  [0x1, 'idle'],
  [0x2, 'application clock setting'],
  [0x4, 'power cap (software)'],
  [0x8, 'hardware slowdown'],
  [0x10, 'sync boost'],
  [0x20, 'thermal slowdown (software)'],
  [0x40, 'thermal slowdown (hardware)'],
  [0x80, 'power brake (hardware)'],
  [0x100, 'display clock setting'],
];

/** The reasons set in `mask`, in words; [] when none is set. */
export function throttleReasonWords(mask: number): string[] {
  const out: string[] = [];
  let known = 0;
  for (const [bit, words] of REASONS) {
    known |= bit;
    if (mask & bit) out.push(words);
  }
  const rest = mask & ~known;
  if (rest) out.push(`other (0x${rest.toString(16)})`);
  return out;
}

/** One line for a reading: "not reported" (null), "none" (0) or the reasons joined. */
export function throttleText(mask: number | null | undefined): string {
  if (mask === null || mask === undefined || !Number.isInteger(mask) || mask < 0) return 'not reported';
  const words = throttleReasonWords(mask);
  return words.length ? words.join(', ') : 'none';
}
