import { defineCommand } from '../command';
import { WORKLOAD_IDS } from '../../../core/sim/workloads';
import { runSimWorkloadWith, SIM_WORKLOAD_OPTIONS, SIM_WORKLOAD_USAGE } from '../../lab/standalone/sim-workload';

/** Internal: the simulated backend's workload process (docs/line-protocol.md). Hidden from --help. */
export const simWorkloadCommand = defineCommand({
  name: 'sim-workload',
  summary: 'Run a simulated workload that prints the CapLab line protocol (internal, used with simulated GPUs)',
  usage: SIM_WORKLOAD_USAGE,
  options: SIM_WORKLOAD_OPTIONS,
  // Internal, but its flags are described like any command's, for whoever runs it by hand (docs/line-protocol.md).
  flags: {
    workload: { value: 'ID', text: `The simulated workload to run (required): ${WORKLOAD_IDS.join(', ')}.`, example: '--workload vit_l_16' },
    devices: { value: 'LIST', text: 'The simulated GPUs it runs on, by index.', default: '0', example: '--devices 0,1' },
    'state-dir': { value: 'DIR', text: 'The simulated GPUs\' state directory (required): the process registers its load there and re-reads the limits every step.', example: '--state-dir /tmp/sim' },
    clock: { value: 'ORIGIN:SPEEDUP[:START]', text: 'The simulated clock: simulated time is START (default ORIGIN) at real epoch second ORIGIN and runs SPEEDUP times faster after it.', default: '$CAPLAB_SIM_CLOCK, else real time', example: '--clock 1767225600:100' },
    param: { value: 'KEY=VALUE', text: 'A workload parameter (batch_size, seq_len); other keys are accepted and ignored; repeatable.', example: '--param batch_size=64' },
    'max-steps': { value: 'N', text: 'End after N steps.', default: 'no limit', example: '--max-steps 100' },
    seed: { value: 'N', text: 'Seed of the step-to-step noise.', default: '1', example: '--seed 7' },
    'fail-after-s': { value: 'S', text: 'Crash (a traceback, exit 1) after S simulated seconds.', default: 'never', example: '--fail-after-s 30' },
    'hang-after-s': { value: 'S', text: 'Hang (print nothing more until ended) after S simulated seconds.', default: 'never', example: '--hang-after-s 30' },
    garbage: { text: 'Mix in lines that break the protocol, one per step.', default: 'off' },
    daemon: { text: 'Leave a daemon process behind, as some servers do.', default: 'off' },
    'switch-after-s': { value: 'S', text: 'With --switch-workload: after S simulated seconds the job becomes that workload (a phase change).', example: '--switch-after-s 60' },
    'switch-workload': { value: 'ID', text: 'With --switch-after-s: the workload the job becomes.', example: '--switch-workload llama_infer' },
  },
  hidden: true,
  run: (args, io) => runSimWorkloadWith(args.values, io.stdout, io.env),
});
