// Starts the import parse thread from TypeScript source (CLI through tsx, tests): worker threads do not take
// tsx's --import hook, so register it here. A bundled build starts import-worker.js directly instead.
import { register } from 'tsx/esm/api';

register();
await import('./parse-worker.ts');
