// Ordinary log lines of simulated workloads, in the style of the real tools they imitate (DOMAIN.md), so the
// pty path carries the mix of protocol events and plain text that real workloads produce.
import type { WorkloadModel } from './workloads';

export interface StepLog {
  /** 1-based step number. */
  n: number;
  /** Units of the steps since the previous log line, summed over GPUs, and the simulated seconds they took. */
  units: number;
  seconds: number;
  batch_size: number;
  loss: number;
}

/** Steps between log lines: the vision benchmark reports per 50-step epoch, LitGPT every 10 iterations. */
export function logEvery(model: WorkloadModel): number {
  return model.log_style === 'vision' ? 50 : model.log_style === 'litgpt' ? 10 : 20;
}

export function formatStepLog(model: WorkloadModel, s: StepLog): string {
  const rate = s.units / s.seconds;
  switch (model.log_style) {
    case 'vision':
      return `Train Epoch ${s.n / logEvery(model)}: Processed ${s.units} samples in ${s.seconds.toFixed(2)}s (${rate.toFixed(2)} samples/sec)`;
    case 'litgpt':
      return `iter ${s.n} step ${s.n}: loss ${s.loss.toFixed(4)}, iter time: ${((s.seconds / logEvery(model)) * 1000).toFixed(2)} ms, tokens/sec: ${rate.toFixed(1)}`;
    case 'serving':
      return `Decode batch. #running-req: ${s.batch_size}, #token: ${s.units}, gen throughput (token/s): ${rate.toFixed(2)}`;
  }
}

/** A falling training loss; serving workloads have none. */
export function simulatedLoss(n: number, noise: number): number {
  return 2.1 + 8.5 * Math.exp(-n / 400) + 0.05 * noise;
}
