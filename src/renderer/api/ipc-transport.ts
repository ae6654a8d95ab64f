import type { EventName } from '../../shared/api';
import { ApiCallError, type CapLabBridge, type Transport } from './transport';
import { ApiErrorCode, httpStatusOf } from '../../shared/errors';

export function ipcTransport(bridge: CapLabBridge): Transport {
  return {
    kind: 'ipc',
    async call(method, input) {
      try {
        return await bridge.call(method, input);
      } catch (e) {
        // Only the message crosses the context bridge; the preload puts the contract's code in front: "[code] text".
        const msg = String((e as { message?: string }).message ?? e);
        const m = /^\[([a-z_]+)\] ([\s\S]*)$/.exec(msg.replace(/^[\s\S]*?(?=\[[a-z_]+\] )/, ''));
        const code = ApiErrorCode.safeParse(m?.[1]);
        throw new ApiCallError(code.success ? m![2]! : msg, code.success ? code.data : 'internal', code.success ? httpStatusOf[code.data] : 0);
      }
    },
    on(event: EventName, cb) {
      return bridge.on(event, cb);
    },
  };
}
