/** The contract's limit on one `writePty` call. */
export const PTY_CHUNK = 4096;

export type PtyInputState = 'idle' | 'sending' | 'delivered' | 'no-workload' | 'error';

export interface PtyWriter {
  /** Queues keystrokes (or a paste) for the sweep's workload; sent in order, one call at a time. */
  write(data: string): void;
  /** Drops what is still queued (the run ended, the console closed). */
  close(): void;
}

/** Splits text into pieces of at most `max` UTF-16 units without cutting a surrogate pair. */
export function splitChunks(data: string, max = PTY_CHUNK): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < data.length) {
    let end = Math.min(data.length, i + max);
    const last = data.charCodeAt(end - 1);
    if (end < data.length && end - i > 1 && last >= 0xd800 && last <= 0xdbff) end--;
    out.push(data.slice(i, end));
    i = end;
  }
  return out;
}

/**
 * Sends terminal input through `send` (the API's writePty) strictly in order: over HTTP two calls in flight could
 * arrive swapped, which would scramble a typed password. Pastes longer than the contract's limit are split.
 * `onState` reports the outcome of the last call: delivered, no workload running right now, or an error.
 */
export function createPtyWriter(send: (data: string) => Promise<{ written: boolean }>, onState: (s: PtyInputState, error?: string) => void): PtyWriter {
  const queue: string[] = [];
  let busy = false;
  let closed = false;
  async function pump(): Promise<void> {
    if (busy) return;
    busy = true;
    while (queue.length && !closed) {
      // Coalesce what queued up while the last call was in flight, up to the limit.
      let chunk = queue.shift()!;
      while (queue.length && chunk.length + queue[0]!.length <= PTY_CHUNK) chunk += queue.shift()!;
      onState('sending');
      try {
        const r = await send(chunk);
        if (!closed) onState(r.written ? 'delivered' : 'no-workload');
      } catch (e) {
        if (!closed) onState('error', (e as Error).message);
      }
    }
    busy = false;
  }
  return {
    write(data) {
      if (closed || !data) return;
      queue.push(...splitChunks(data));
      void pump();
    },
    close() {
      closed = true;
      queue.length = 0;
    },
  };
}
