// Axis tick labels of the live traces' canvas: pure, so a unit test on Node reads them without a DOM.

/** A tick's label with the digits its step needs, so neighbours differ (1.45k beside 1.5k, never 1.5k twice). */
export function tickLabel(v: number, step: number): string {
  const thousands = Math.abs(v) >= 1000;
  const digits = Math.min(6, Math.max(0, Math.ceil(-Math.log10(thousands ? step / 1000 : step) - 1e-9)));
  const text = (thousands ? v / 1000 : v).toFixed(digits);
  const trimmed = text.includes('.') ? text.replace(/0+$/, '').replace(/\.$/, '') : text;
  return thousands ? `${trimmed}k` : trimmed;
}
