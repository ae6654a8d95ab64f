import type { LabApi, LabEventListener } from '../../shared/api';

/**
 * What the transports (browser host, Electron IPC) need from the engine: the contract's methods plus a way to
 * hear its events. `src/main/lab/engine.ts`'s Engine satisfies this structurally.
 */
export interface EngineHandle extends LabApi {
  /** Calls cb for every engine event; returns the unsubscribe function. */
  subscribe(cb: LabEventListener): () => void;
}
