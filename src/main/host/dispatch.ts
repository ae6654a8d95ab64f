import type { ZodError } from 'zod';
import { isMethodName, methods, type ApiError, type MethodName } from '../../shared/api';
import type { EngineHandle } from './engine-handle';
import { labErrorCode, labErrorIssues } from '../lab/basics';
import { httpStatusOf } from '../../shared/errors';

/** Result of one contract call, transport-neutral: the HTTP host maps `code` to a status, IPC passes it through. */
export type CallResult = { ok: true; value: unknown } | { ok: false; status: number; error: ApiError };

/** `path.to.field: message; ...` — the zod issues in one line, naming each field. */
function formatZodError(err: ZodError, prefix = 'input'): string {
  return err.issues
    .slice(0, 5)
    .map((i) => `${[prefix, ...i.path.map(String)].join('.')}: ${i.message}`)
    .join('; ');
}

export function callError(code: ApiError['code'], message: string, issues?: ApiError['issues']): CallResult {
  return { ok: false, status: httpStatusOf[code], error: issues ? { error: message, code, issues } : { error: message, code } };
}

/**
 * Validates `input` with the method's schema and calls the engine. Never throws: every failure becomes an ApiError
 * (invalid names the field; engine errors keep their message, and a refused plan's its problems at their fields).
 */
export async function dispatch(engine: EngineHandle, method: string, input: unknown): Promise<CallResult> {
  if (!isMethodName(method)) return callError('not_found', `unknown method "${method}"`);
  const schema = methods[method as MethodName].input;
  const parsed = schema.safeParse(input ?? {});
  if (!parsed.success) return callError('invalid', `${method}: ${formatZodError(parsed.error)}`);
  try {
    const fn = engine[method as MethodName] as (i: unknown) => Promise<unknown>;
    const value = await fn.call(engine, parsed.data);
    return { ok: true, value: value === undefined ? null : value };
  } catch (e) {
    const code = labErrorCode(e);
    const message = e instanceof Error ? e.message : String(e);
    return callError(code, message || 'engine call failed', labErrorIssues(e));
  }
}
