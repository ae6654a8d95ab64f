// A door of the engine for `caplab sim-workload`, the simulated benchmark process a sweep on simulated GPUs starts once
// per run: it loads only the simulator, so a run's start-up is not spent loading the engine.
export { runSimWorkloadWith, SIM_WORKLOAD_OPTIONS, SIM_WORKLOAD_USAGE } from '../runner/sim-workload';
