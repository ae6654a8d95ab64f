import { defaultForm, type PlanForm } from './plan-form';

/** Ready-made sweeps after the seed papers (DOMAIN.md). On the simulated backend they use matching presets. */
export interface Template {
  id: string;
  title: string;
  note: string;
  form: PlanForm;
}

const base = defaultForm();

export const templates: Template[] = [
  {
    id: 'demo',
    title: 'Quick demo: ViT-L/16 on a simulated H100 (under a minute)',
    note: '200–700 W in 100 W steps, 2 repetitions, randomized; simulated time 40× faster.',
    form: {
      ...base,
      name: 'demo ViT-L/16 on simulated H100',
      backend: 'sim',
      workloads: [{ id: 'vit_l_16', params: [{ key: 'batch_size', value: '64' }], runtime: 'native' }],
      grid: { from: 200, to: 700, step: 100 },
      repetitions: 2,
      seed: 7,
      simSpeedup: 40,
      simDevices: 'h100-sxm',
    },
  },
  {
    id: 'vit-h100',
    title: 'Paper: ViT-L/16 training, H100, 200–700 W',
    note: 'Power-aware AI benchmarking (arXiv 2603.16164): fp32, 224 px random images, first epoch as warm-up, 100 W node overhead. 3 repetitions answer the run-to-run variance objection.',
    form: {
      ...base,
      name: 'ViT-L/16 training on H100 (seed paper grid)',
      workloads: [{ id: 'vit_l_16', params: [{ key: 'batch_size', value: '128' }], runtime: 'native' }],
      grid: { from: 200, to: 700, step: 100 },
      repetitions: 3,
      warmup: 30,
      window: 60,
      simDevices: 'h100-sxm',
    },
  },
  {
    id: 'llama-pretrain',
    title: 'Paper: LLaMA-3 8B pre-training, 4 GPUs, 200–700 W',
    note: 'LitGPT, bf16, micro-batch 4, sequence 512, random tokens; throughput in tokens/s per GPU.',
    form: {
      ...base,
      name: 'LLaMA-3 8B pre-training on 4 GPUs',
      devices: [0, 1, 2, 3],
      workloads: [{ id: 'llama_pretrain', params: [{ key: 'batch_size', value: '4' }, { key: 'seq_len', value: '512' }], runtime: 'native' }],
      grid: { from: 200, to: 700, step: 100 },
      repetitions: 3,
      warmup: 40,
      window: 90,
      simDevices: 'h100-sxm, h100-sxm, h100-sxm, h100-sxm',
    },
  },
  {
    id: 'adaptive-h200',
    title: 'Refine the peak: ResNet-50 on H200, adaptive caps',
    note: 'Starts on the 100 W grid and adds caps near the best one until it is known to within 25 W.',
    form: {
      ...base,
      name: 'ResNet-50 on H200, adaptive',
      workloads: [{ id: 'resnet50', params: [{ key: 'batch_size', value: '256' }], runtime: 'native' }],
      capsMode: 'adaptive',
      adaptive: { from: 200, to: 700, step: 100, width_w: 25, max_runs: 12 },
      repetitions: 3,
      simDevices: 'h200',
    },
  },
  {
    id: 'infer-mi300x',
    title: 'Paper: LLaMA-3 8B inference, MI300X, 200–750 W',
    note: 'SGLang-style serving; the paper saw caps below 400 W not enforced on MI300X — watch the enforcement flags.',
    form: {
      ...base,
      name: 'LLaMA-3 8B inference on MI300X',
      workloads: [{ id: 'llama_infer', params: [], runtime: 'native' }],
      capsMode: 'list',
      list: '200, 300, 400, 500, 600, 700, 750',
      repetitions: 3,
      simDevices: 'mi300x',
    },
  },
];
