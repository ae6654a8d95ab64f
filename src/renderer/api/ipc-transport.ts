import type { EventName } from '../../shared/api';
import { ApiCallError, type CapLabBridge, type Transport } from './transport';

export function ipcTransport(bridge: CapLabBridge): Transport {
  return {
    kind: 'ipc',
    async call(method, input) {
      try {
        return await bridge.call(method, input);
      } catch (e) {
        // Only the message crosses the context bridge; the preload puts the contract's code in front: "[code] text".
        const msg = String((e as { message?: string }).message ?? e);
        const m = /\[(bad_request|not_found|failed|unauthorized|forbidden)\] ([\s\S]*)$/.exec(msg);
        throw new ApiCallError(m ? m[2]! : msg, m ? m[1]! : 'failed');
      }
    },
    on(event: EventName, cb) {
      return bridge.on(event, cb);
    },
  };
}
