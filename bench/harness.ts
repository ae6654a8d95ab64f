import { cpus, hostname, loadavg, totalmem } from 'node:os';

export interface BenchResult {
  name: string;
  /** What the ratio compares: candidate / baseline, measured in the same run. */
  ratio_label: string;
  ratio: number;
  /** Target the ratio must meet (direction given by `better`). */
  target: number;
  better: 'higher' | 'lower';
  /** An absolute goal the candidate must also meet (the numbers), beside the ratio. */
  goal?: { label: string; value: number; limit: number; better: 'higher' | 'lower' };
  details: Record<string, number | string>;
}

/** The machine, with its load average when the run ended (a shared machine's load moves every absolute number). */
export function machine(): { host: string; cpu: string; cores: number; mem_gib: number; node: string; date: string; load_1m: number } {
  return {
    host: hostname(),
    cpu: cpus()[0]?.model ?? 'unknown',
    cores: cpus().length,
    mem_gib: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    date: new Date().toISOString(),
    load_1m: +loadavg()[0]!.toFixed(1),
  };
}

const meets = (value: number, limit: number, better: 'higher' | 'lower') => (better === 'higher' ? value >= limit : value <= limit);

export function passes(r: BenchResult): boolean {
  return meets(r.ratio, r.target, r.better) && (!r.goal || meets(r.goal.value, r.goal.limit, r.goal.better));
}

/** CPU seconds (user + system) spent by this process while fn runs. */
export async function cpuSeconds<T>(fn: () => Promise<T> | T): Promise<{ value: T; cpu_s: number; wall_s: number }> {
  const c0 = process.cpuUsage();
  const w0 = performance.now();
  const value = await fn();
  const c = process.cpuUsage(c0);
  return { value, cpu_s: (c.user + c.system) / 1e6, wall_s: (performance.now() - w0) / 1000 };
}
