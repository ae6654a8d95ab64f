// Starts the samples-Parquet export worker from TypeScript source (CLI through tsx, tests): Node's worker threads
// do not take tsx's --import hook, so register it here. A bundled build starts parquet-export-worker.js instead.
import { register } from 'tsx/esm/api';

register();
await import('./parquet-export-worker.ts');
