// Simulated workloads: how much power each draws and how fast it runs on the reference GPU (H100 SXM).
// vit_l_16 and llama_pretrain are fitted to the published H100 per-cap throughput (DOMAIN.md, within ~1 %);
// the others are plausible figures of the same kind, not measurements.

export type SimUnits = 'images' | 'tokens';
export type SimParams = Record<string, string | number | boolean>;

export interface WorkloadModel {
  id: string;
  label: string;
  units: SimUnits;
  /** Units/s per GPU on the H100 at maximum clock with the default batch. */
  throughput_ref: number;
  /** Share of a step's time that scales with the SM clock on the H100; the rest waits on memory. */
  compute_fraction: number;
  /** Dynamic power on the H100 at maximum clock; load power = preset static_w + this (scaled per preset). */
  dynamic_w: number;
  default_batch: number;
  /** Units one batch item contributes per step: 1 image, or tokens per sequence. */
  default_item_units: number;
  /** Whether `seq_len` sets the tokens per item (training on fixed-length sequences). */
  takes_seq_len: boolean;
  memory: { base_mb: number; per_item_mb: number };
  /** Start-up before the first step (imports, model build, weight load): near-idle power, no steps. */
  init_s: number;
  /** Time constant of the warm-up ramp (autotuning, compilation, allocator growth) after init. */
  ramp_tau_s: number;
  /** Which real tool's log lines the simulated process imitates between protocol events. */
  log_style: 'vision' | 'litgpt' | 'serving';
}

const WORKLOADS: readonly WorkloadModel[] = [
  {
    id: 'resnet50',
    label: 'ResNet-50 training (fp32, 224 px)',
    units: 'images',
    throughput_ref: 1400,
    compute_fraction: 0.62,
    dynamic_w: 470,
    default_batch: 256,
    default_item_units: 1,
    takes_seq_len: false,
    memory: { base_mb: 3000, per_item_mb: 110 },
    init_s: 3,
    ramp_tau_s: 3,
    log_style: 'vision',
  },
  {
    id: 'vit_l_16',
    label: 'ViT-L/16 training (fp32, 224 px)',
    units: 'images',
    throughput_ref: 303,
    compute_fraction: 0.8,
    dynamic_w: 560,
    default_batch: 128,
    default_item_units: 1,
    takes_seq_len: false,
    memory: { base_mb: 4000, per_item_mb: 420 },
    init_s: 4,
    ramp_tau_s: 5,
    log_style: 'vision',
  },
  {
    id: 'sd_unet',
    label: 'Stable Diffusion v2 UNet training (fp16, 512 px)',
    units: 'images',
    throughput_ref: 28,
    compute_fraction: 0.85,
    dynamic_w: 600,
    default_batch: 12,
    default_item_units: 1,
    takes_seq_len: false,
    memory: { base_mb: 12000, per_item_mb: 3500 },
    init_s: 8,
    ramp_tau_s: 6,
    log_style: 'vision',
  },
  {
    id: 'llama_pretrain',
    label: 'LLaMA-3 8B continued pre-training (bf16, LitGPT)',
    units: 'tokens',
    throughput_ref: 31970,
    compute_fraction: 0.718,
    dynamic_w: 772,
    default_batch: 16,
    default_item_units: 512,
    takes_seq_len: true,
    memory: { base_mb: 52000, per_item_mb: 1200 },
    init_s: 12,
    ramp_tau_s: 8,
    log_style: 'litgpt',
  },
  {
    // Decode-dominated serving is memory-bound: clocks matter less, so caps cost little throughput.
    id: 'llama_infer',
    label: 'LLaMA-3 8B inference (bf16, SGLang-style serving)',
    units: 'tokens',
    throughput_ref: 5200,
    compute_fraction: 0.45,
    dynamic_w: 430,
    default_batch: 64,
    default_item_units: 8,
    takes_seq_len: false,
    memory: { base_mb: 18000, per_item_mb: 400 },
    init_s: 10,
    ramp_tau_s: 4,
    log_style: 'serving',
  },
];

export const WORKLOAD_IDS: readonly string[] = WORKLOADS.map((w) => w.id);

export function findWorkload(id: string): WorkloadModel | undefined {
  return WORKLOADS.find((w) => w.id === id);
}

/** A workload parameter the simulation cannot use (wrong type or range). */
export class SimConfigError extends Error {
  override name = 'SimConfigError';
}

export interface ResolvedParams {
  batch_size: number;
  /** Units one batch item contributes per step (1 image, or tokens per sequence). */
  item_units: number;
}

function positiveInt(params: SimParams, key: string, fallback: number): number {
  const raw = params[key];
  if (raw === undefined) return fallback;
  const n = typeof raw === 'number' ? raw : typeof raw === 'string' ? Number(raw) : NaN;
  if (!Number.isInteger(n) || n <= 0) throw new SimConfigError(`param ${key} must be a positive integer, got ${JSON.stringify(raw)}`);
  return n;
}

/**
 * The parameters the simulation models (batch_size, and seq_len for pre-training). Other keys are left to real
 * workloads' definitions and ignored here, so one plan can name parameters for both.
 */
export function resolveParams(model: WorkloadModel, params: SimParams): ResolvedParams {
  return {
    batch_size: positiveInt(params, 'batch_size', model.default_batch),
    item_units: model.takes_seq_len ? positiveInt(params, 'seq_len', model.default_item_units) : model.default_item_units,
  };
}

/**
 * Throughput relative to the default batch: small batches leave the GPU partly idle between kernels.
 * Saturating in the batch, halving the default batch costs about 5 %.
 */
export function batchEfficiency(model: WorkloadModel, batch: number): number {
  const half = model.default_batch / 8;
  return batch / (batch + half) / (model.default_batch / (model.default_batch + half));
}

export function memoryNeededMb(model: WorkloadModel, p: ResolvedParams): number {
  const perItem = model.memory.per_item_mb * (p.item_units / model.default_item_units);
  return Math.round(model.memory.base_mb + perItem * p.batch_size);
}
