import type { CliCommand } from '../command';
import { runSimWorkloadWith, SIM_WORKLOAD_OPTIONS, SIM_WORKLOAD_USAGE } from '../../lab/standalone/sim-workload';

/** Internal: the simulated backend's workload process (docs/line-protocol.md). Hidden from --help. */
export const simWorkloadCommand: CliCommand = {
  name: 'sim-workload',
  summary: 'Run a simulated workload that prints the CapLab line protocol (internal, used with simulated GPUs)',
  usage: SIM_WORKLOAD_USAGE,
  options: SIM_WORKLOAD_OPTIONS,
  hidden: true,
  run: (args, io) => runSimWorkloadWith(args.values, io.stdout, io.env),
};
