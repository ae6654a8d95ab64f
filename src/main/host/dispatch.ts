import type { ZodError } from 'zod';
import { isMethodName, methods, type ApiError, type MethodName } from '../../shared/api';
import type { EngineHandle } from './engine-handle';

/** Result of one contract call, transport-neutral: the HTTP host maps `code` to a status, IPC passes it through. */
export type CallResult = { ok: true; value: unknown } | { ok: false; status: number; error: ApiError };

/** `path.to.field: message; ...` — the zod issues in one line, naming each field. */
export function formatZodError(err: ZodError, prefix = 'input'): string {
  return err.issues
    .slice(0, 5)
    .map((i) => `${[prefix, ...i.path.map(String)].join('.')}: ${i.message}`)
    .join('; ');
}

function statusOf(code: ApiError['code']): number {
  switch (code) {
    case 'bad_request':
      return 400;
    case 'unauthorized':
      return 401;
    case 'forbidden':
      return 403;
    case 'not_found':
      return 404;
    default:
      return 500;
  }
}

export function callError(code: ApiError['code'], message: string): CallResult {
  return { ok: false, status: statusOf(code), error: { error: message, code } };
}

/** Errors the engine throws may carry a code; a message starting "not found" or a NotFound name map to 404. */
function classify(e: unknown): ApiError['code'] {
  const err = e as { code?: unknown; name?: unknown; message?: unknown };
  if (err && typeof err.code === 'string' && ['bad_request', 'not_found', 'failed'].includes(err.code)) return err.code as ApiError['code'];
  const name = typeof err?.name === 'string' ? err.name : '';
  const msg = typeof err?.message === 'string' ? err.message : '';
  if (/notfound/i.test(name) || /\bnot found\b|^unknown (sweep|run)/i.test(msg)) return 'not_found';
  if (name === 'ZodError' || /validation|invalid/i.test(name)) return 'bad_request';
  return 'failed';
}

/**
 * Validates `input` with the method's schema and calls the engine. Never throws: every failure becomes an ApiError
 * (bad_request names the field; engine errors keep their message).
 */
export async function dispatch(engine: EngineHandle, method: string, input: unknown): Promise<CallResult> {
  if (!isMethodName(method)) return callError('not_found', `unknown method "${method}"`);
  const schema = methods[method as MethodName].input;
  const parsed = schema.safeParse(input ?? {});
  if (!parsed.success) return callError('bad_request', `${method}: ${formatZodError(parsed.error)}`);
  try {
    const fn = engine[method as MethodName] as (i: unknown) => Promise<unknown>;
    const value = await fn.call(engine, parsed.data);
    return { ok: true, value: value === undefined ? null : value };
  } catch (e) {
    const code = classify(e);
    const message = e instanceof Error ? e.message : String(e);
    return callError(code, message || 'engine call failed');
  }
}
