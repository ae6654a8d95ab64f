import { BackendError } from './gpu/backend';
import { LeaseHeldError } from './lease/device-lease';
import { isDiskFullError } from './store/disk-full';
import { errorCodeOf, type ErrorCode } from '../../shared/errors';

/**
 * The error code of anything the engine throws, by type: LabErrors carry theirs; a GPU backend's failure is
 * 'unavailable' (a bad value it refused is 'invalid'); a device owned by another process is a 'conflict'; a full
 * disk (SQLite's SQLITE_FULL, ENOSPC) is 'unavailable', the machine's state rather than a bug.
 */
export function labErrorCode(e: unknown): ErrorCode {
  if (e instanceof BackendError) return e.code === 'out-of-range' ? 'invalid' : 'unavailable';
  if (e instanceof LeaseHeldError) return 'conflict';
  if (isDiskFullError(e)) return 'unavailable';
  return errorCodeOf(e);
}
