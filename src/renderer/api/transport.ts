import type { EventName } from '../../shared/api';
import type { PlanIssue } from '../../shared/api/plans';

/** How the client reaches the engine: Electron IPC through the preload, or HTTP + WebSocket from the browser host. */
export interface Transport {
  readonly kind: 'ipc' | 'http';
  call(method: string, input: unknown): Promise<unknown>;
  on(event: EventName, cb: (payload: unknown) => void): () => void;
  /** Browser host only: streams a file to PUT /api/upload (the browser reads it from disk as it sends). */
  upload?(file: File, onProgress: (sent: number, total: number) => void): Promise<UploadedFile>;
}

/** Where an upload landed on the host: imported by path. */
export interface UploadedFile {
  path: string;
  bytes: number;
}

/** The error both transports throw: the engine's message plus the contract's error code, and a refused plan's issues. */
export class ApiCallError extends Error {
  constructor(
    message: string,
    readonly code: string,
    readonly status = 0,
    /** The problems at their fields, when the engine refused a plan ([] otherwise). */
    readonly issues: PlanIssue[] = [],
  ) {
    super(message);
    this.name = 'ApiCallError';
  }
}

/** The engine answered that the named sweep, run or dataset is not stored. */
export const isNotFound = (e: unknown): boolean => e instanceof ApiCallError && e.code === 'not_found';

export type ConnectionState = 'connecting' | 'open' | 'closed' | 'unauthorized';

/** What the preload exposes in Electron (src/preload/index.ts). */
export interface CapLabBridge {
  call(method: string, input: unknown): Promise<unknown>;
  on(event: string, cb: (payload: unknown) => void): () => void;
  /** The local path of a dropped file (Electron's webUtils), so big logs are imported in place, not uploaded. */
  pathForFile?(file: File): string;
}

declare global {
  interface Window {
    caplab?: CapLabBridge;
  }
}
