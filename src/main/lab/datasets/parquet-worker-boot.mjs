// Starts the Parquet reading thread from TypeScript source (CLI through tsx, tests): Node's worker threads do not take
// tsx's --import hook, so register it here. A bundled build starts parquet-worker.js directly instead.
import { register } from 'tsx/esm/api';

register();
await import('./parquet-worker.ts');
