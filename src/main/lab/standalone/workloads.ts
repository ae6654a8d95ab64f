// A door of the engine for `caplab workloads`: the built-in and user workload definitions, read without an engine.
export { loadWorkloads, summarizeWorkload, userWorkloadsDir } from '../runner/workloads';
