// The light half of the engine's door (./index.ts): what a face needs before it opens an engine (the error codes of
// what the engine throws, the version, where the lab database lives), without loading the engine itself, so that
// `caplab --help` and a bad flag stay fast.
export { labErrorCode, labErrorIssues } from './errors/error-code';
export { dbPath, dataDir } from './files/paths';
export { VERSION } from './environment/version';
/** The order `--backend auto` tries the GPU backends in (help text). */
export { autoOrder } from './gpu/registry';
