// What the energy under a units/J figure includes, in words: every face says it beside the figure (issue #25,
// finding 7: a dataset's 0.1830 images/J silently included 100 W of node overhead).

export interface EnergyParts {
  /** Runs (or segments) whose node energy used measured CPU energy. */
  measured_cpu: number;
  /** Runs (or segments) in all. */
  total: number;
  /** Node overhead added where CPU energy was not measured, W. */
  overhead_w: number;
  /** The power series already is the whole node's (or the facility's): nothing is added. */
  whole_node?: 'node' | 'facility' | null;
}

/** "GPU energy + 100 W node overhead", "GPU energy + measured CPU (RAPL)", "node power as recorded (nothing added)". */
export function energyBasis(p: EnergyParts): string {
  if (p.whole_node) return `${p.whole_node} power as recorded (no overhead added)`;
  const overhead = p.overhead_w > 0 ? `+ ${p.overhead_w} W node overhead` : '(GPU only: 0 W node overhead)';
  if (p.total > 0 && p.measured_cpu === p.total) return 'GPU energy + measured CPU (RAPL)';
  if (p.measured_cpu > 0) return `GPU energy + measured CPU (RAPL) in ${p.measured_cpu} of ${p.total}, else ${overhead}`;
  return `GPU energy ${overhead}`;
}
