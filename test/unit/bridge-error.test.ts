// The Electron bridge keeps only an Error's message: the preload writes the API error into it
// (shared/bridge-error.ts) and the renderer's IPC transport reads it back (renderer/api/bridge-error.ts).
import { describe, expect, it } from 'vitest';
import { bridgeErrorText } from '../../src/shared/bridge-error';
import { apiErrorOfBridge } from '../../src/renderer/api/bridge-error';
import type { ApiError } from '../../src/shared/api';

/** What the renderer's catch sees: Electron puts its own words in front of a message thrown in the preload. */
const acrossBridge = (e: ApiError) => `Error invoking remote method 'caplab:call': Error: ${bridgeErrorText(e)}`;

describe('the bridge error mapping', () => {
  it('carries a refused plan\'s issues unchanged, with its code and message text', () => {
    const refused: ApiError = {
      code: 'invalid',
      error: 'plan: invalid plan\n  caps: 900 W is outside the allowed range\n  devices.1: no GPU with index 5 (available: 0)',
      issues: [
        { path: 'caps', message: '900 W is outside the allowed range', severity: 'error' },
        { path: 'devices.1', message: 'no GPU with index 5 (available: 0)', severity: 'error' },
      ],
    };
    expect(apiErrorOfBridge(acrossBridge(refused))).toEqual(refused);
  });

  it('writes an error without issues as before: "[code] text", read back without issues', () => {
    const e: ApiError = { code: 'conflict', error: 'a sweep is running' };
    expect(bridgeErrorText(e)).toBe('[conflict] a sweep is running');
    expect(apiErrorOfBridge(acrossBridge(e))).toEqual(e);
  });

  it('keeps a message that itself holds the issues mark when what follows is not JSON', () => {
    const e: ApiError = { code: 'invalid', error: 'line one\n[issues] not json' };
    expect(apiErrorOfBridge(bridgeErrorText(e))).toEqual(e);
  });

  it('drops issues that are not the contract\'s, keeping code and message', () => {
    expect(apiErrorOfBridge('[invalid] bad plan\n[issues] [{"path":3}]')).toEqual({ code: 'invalid', error: 'bad plan' });
  });

  it('reads no API error from a message the preload did not write, or with a code outside the contract', () => {
    expect(apiErrorOfBridge('unknown method "nope"')).toBeNull();
    expect(apiErrorOfBridge('[teapot] short and stout')).toBeNull();
  });
});
