// The preload's error message back into the contract's error (pure: unit-tested without Electron or a DOM).
import { ApiError } from '../../shared/api';
import { bridgeErrorParts } from '../../shared/bridge-error';

/**
 * The API error a message from the preload carries, checked with the contract; null for one the preload did not
 * write. Issues that fail the check are dropped, the code and message kept.
 */
export function apiErrorOfBridge(message: string): ApiError | null {
  const parts = bridgeErrorParts(message);
  if (!parts) return null;
  const full = ApiError.safeParse(parts);
  if (full.success) return full.data;
  const bare = ApiError.safeParse({ code: parts.code, error: parts.error });
  return bare.success ? bare.data : null;
}
