import { FacilityInputError, type NodeProfile } from './profile';
import { Rng } from './rng';

/**
 * Built-in per-node profiles shaped like the NLR measurements (4x H100 SXM + 2 CPUs per node, GPU + CPU power at
 * 1 s): a CPU-bound start-up with the GPUs near idle, training at a plateau with step-level ripple and periodic
 * evaluation dips, and a short wind-down. Levels are reconstructions (the paper gives figures, not tables), chosen so
 * a busy node averages ~2,500 W as the published facility means imply. Under a GPU cap each GPU's draw is clipped
 * at the cap and the job's throughput follows the H100 LLaMA-3 8B curve of Source 1 (DOMAIN.md).
 */
interface Shape {
  startupS: number;
  startupGpuW: number;
  cpuW: number;
  trainGpuW: number;
  rippleW: number;
  ripplePeriodS: number;
  evalEveryS: number;
  evalS: number;
  evalGpuW: number;
  tailS: number;
}

const SHAPES: Record<string, Shape> = {
  // Llama-2 70B LoRA fine-tuning (MLPerf reference): short start-up, high plateau, brief evaluations.
  'llama2-70b-lora': { startupS: 240, startupGpuW: 110, cpuW: 330, trainGpuW: 582, rippleW: 60, ripplePeriodS: 9, evalEveryS: 600, evalS: 45, evalGpuW: 330, tailS: 60 },
  // Stable Diffusion training: longer start-up, slightly lower plateau, long evaluations (iterative sampling).
  'stable-diffusion': { startupS: 420, startupGpuW: 100, cpuW: 300, trainGpuW: 598, rippleW: 90, ripplePeriodS: 14, evalEveryS: 1800, evalS: 240, evalGpuW: 420, tailS: 90 },
};

/** LLaMA-3 8B pre-training tokens/s per H100 at caps 200…700 W (Source 1), relative to 700 W. */
const CAP_W = [200, 300, 400, 500, 600, 700];
const CAP_THROUGHPUT = [9699.3, 17982.3, 24853.4, 27705.3, 29250.0, 30271.0].map((v) => v / 30271.0);

export const GPUS_PER_NODE = 4;

export function builtinNames(): string[] {
  return [...Object.keys(SHAPES), ...Object.keys(RATE_CURVES)];
}

export function throughputAtCap(capW: number): number {
  if (capW >= CAP_W[CAP_W.length - 1]!) return 1;
  if (capW <= CAP_W[0]!) return CAP_THROUGHPUT[0]! * (capW / CAP_W[0]!);
  let i = 1;
  while (CAP_W[i]! < capW) i++;
  const f = (capW - CAP_W[i - 1]!) / (CAP_W[i]! - CAP_W[i - 1]!);
  return CAP_THROUGHPUT[i - 1]! + f * (CAP_THROUGHPUT[i]! - CAP_THROUGHPUT[i - 1]!);
}

export function builtinProfile(name: string, field: string, capW?: number): NodeProfile {
  const s = SHAPES[name];
  if (!s) throw new FacilityInputError(field, `no built-in profile "${name}"; built-in: ${Object.keys(SHAPES).join(', ')}`);
  const rng = new Rng(name.length * 7919);
  const clip = (w: number) => (capW === undefined ? w : Math.min(w, capW * 0.98));
  // One evaluation cycle between start-up and wind-down: longer jobs loop it (ProfileAccumulator).
  const lengthS = s.startupS + s.evalEveryS + s.tailS;
  const t_s = new Float64Array(lengthS);
  const power_w = new Float64Array(lengthS);
  for (let t = 0; t < lengthS; t++) {
    let gpu: number;
    if (t < s.startupS) gpu = s.startupGpuW + (t > s.startupS - 30 ? ((t - (s.startupS - 30)) / 30) * (s.trainGpuW - s.startupGpuW) : 0);
    else if (t >= lengthS - s.tailS) gpu = s.startupGpuW;
    else if ((t - s.startupS) % s.evalEveryS >= s.evalEveryS - s.evalS) gpu = s.evalGpuW;
    else gpu = s.trainGpuW + s.rippleW * Math.sin((2 * Math.PI * t) / s.ripplePeriodS) + 15 * rng.normal();
    t_s[t] = t;
    power_w[t] = s.cpuW + GPUS_PER_NODE * clip(Math.max(60, gpu));
  }
  return { t_s, power_w, ramp_s: s.startupS, tail_s: s.tailS };
}

/**
 * Llama-3 70B online serving on one 4x H100 node (vLLM, request-rate sweep): node W against requests/s. The
 * latency-limited rate_max of the NLR site is about 6 req/s per instance; beyond it power saturates.
 */
const RATE_CURVES: Record<string, [number, number][]> = {
  'llama3-70b-serving': [
    [0, 1150],
    [0.5, 1750],
    [1, 2100],
    [2, 2450],
    [4, 2680],
    [6, 2820],
    [8, 2880],
    [12, 2920],
  ],
};

export function builtinRateCurve(name: string, field: string, capW?: number): [number, number][] {
  const c = RATE_CURVES[name];
  if (!c) throw new FacilityInputError(field, `no built-in rate curve "${name}"; built-in: ${Object.keys(RATE_CURVES).join(', ')}`);
  if (capW === undefined) return c;
  // Under a cap the GPUs' share above the cap is clipped (CPU share ~330 W stays).
  return c.map(([r, w]) => [r, 330 + GPUS_PER_NODE * Math.min((w - 330) / GPUS_PER_NODE, capW * 0.98)]);
}
