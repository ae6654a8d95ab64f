/**
 * Run-to-run spread of a workload's mean power on one GPU at one limit: sd 0.19 % (1.3 W) over six 25 s ViT-L/16
 * windows at the 700 W limit of one real H200 (bench/results/h200-sampler-cost.md, run 2: 691.4-695.2 W). The
 * simulated GPUs draw it once per run; the tuner's saving, priced against another run of the job, carries it as a prior
 * (one run cannot show its own draw).
 */
export const RUN_POWER_SD = 0.002;
