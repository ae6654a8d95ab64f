import { z } from 'zod';

/**
 * Typed errors. Every failure the engine reports has one of these codes, mapped once to an HTTP status, an IPC
 * reply and a CLI exit code below; nothing is classified by its message text.
 */
export const ErrorCode = z.enum(['invalid', 'not_found', 'conflict', 'unavailable', 'internal']);
export type ErrorCode = z.infer<typeof ErrorCode>;

/** Codes only a transport produces (the token, the frame), beside the engine's. */
export const TransportCode = z.enum(['unauthorized', 'forbidden']);
export type TransportCode = z.infer<typeof TransportCode>;

export const ApiErrorCode = z.enum([...ErrorCode.options, ...TransportCode.options]);
export type ApiErrorCode = z.infer<typeof ApiErrorCode>;

export class LabError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'LabError';
  }
}

export const httpStatusOf: Record<ApiErrorCode, number> = {
  invalid: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  internal: 500,
  unavailable: 503,
};

/** CLI exit codes: 1 internal (a bug), 2 bad input or nothing there, 3 busy (another owner), 4 no device/tool. */
export const exitCodeOf: Record<ErrorCode, number> = {
  internal: 1,
  invalid: 2,
  not_found: 2,
  conflict: 3,
  unavailable: 4,
};

/** The code of anything thrown: a LabError's own, a zod validation failure is 'invalid', anything else 'internal'. */
export function errorCodeOf(e: unknown): ErrorCode {
  if (e instanceof LabError) return e.code;
  if (e instanceof z.ZodError) return 'invalid';
  return 'internal';
}
