import { BackendError } from '../gpu/backend';
import { LeaseHeldError } from '../lease/device-lease';
import { isDiskFullError } from '../store/disk-full';
import { errorCodeOf, type ErrorCode } from '../../../shared/errors';
import { PlanError } from '../input/errors';
import { marked, type PlanIssue } from '../input/issues';

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

/**
 * The problems of a refused plan (or other input) at their fields, each marked an error, for the API error's
 * `issues`; undefined for anything else. Only 'invalid' ones: a missing sweep (NotFoundError) is no field's fault.
 */
export function labErrorIssues(e: unknown): PlanIssue[] | undefined {
  if (!(e instanceof PlanError) || e.code !== 'invalid') return undefined;
  return marked(e.issues, 'error');
}
