import { BackendError } from './gpu/backend';
import { LeaseHeldError } from './lease/device-lease';
import { errorCodeOf, type ErrorCode } from '../../shared/errors';

/**
 * The error code of anything the engine throws, by type: LabErrors carry theirs; a GPU backend's failure is
 * 'unavailable' (a bad value it refused is 'invalid'); a device owned by another process is a 'conflict'.
 */
export function labErrorCode(e: unknown): ErrorCode {
  if (e instanceof BackendError) return e.code === 'out-of-range' ? 'invalid' : 'unavailable';
  if (e instanceof LeaseHeldError) return 'conflict';
  return errorCodeOf(e);
}
