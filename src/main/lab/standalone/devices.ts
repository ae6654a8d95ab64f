// A door of the engine for `caplab devices`, which reads the GPU backend without opening an engine (no database,
// lease or journal) so that it answers as fast as nvidia-smi does. The doors in this folder are engine-free on purpose.
export { listCpuPackages, openLabBackend } from '../gpu/lab-backend';
