// A door of the engine for `caplab throughput --follow`: a job's output read live through the throughput adapters, as
// `caplab tune` reads it, with no GPU or database involved.
export { followJob } from '../tune/follow-job';
