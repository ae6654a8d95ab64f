import type { EventName } from '../../shared/api';
import { ApiCallError, type CapLabBridge, type Transport } from './transport';
import { httpStatusOf } from '../../shared/errors';
import { apiErrorOfBridge } from './bridge-error';

export function ipcTransport(bridge: CapLabBridge): Transport {
  return {
    kind: 'ipc',
    async call(method, input) {
      try {
        return await bridge.call(method, input);
      } catch (e) {
        // Only the message crosses the context bridge; the preload writes the contract's error into it (shared/bridge-error.ts).
        const msg = String((e as { message?: string }).message ?? e);
        const err = apiErrorOfBridge(msg);
        if (!err) throw new ApiCallError(msg, 'internal', 0);
        throw new ApiCallError(err.error, err.code, httpStatusOf[err.code], err.issues);
      }
    },
    on(event: EventName, cb) {
      return bridge.on(event, cb);
    },
  };
}
