// A door of the engine for `caplab exporter`: the GPU backend sampled on an interval and the running sweep read from
// the database read-only, beside other processes' sweeps, without an engine (no lease, no journal).
export { openLabBackend } from '../gpu/lab-backend';
export { startPolling, type MetricsSink } from '../cluster/exporter-source';
