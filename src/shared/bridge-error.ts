// How an API error crosses Electron's context bridge, which keeps only an Error's message: the contract's code in
// front ("[code] text", as before issues existed), a refused plan's issues as JSON on a last line behind ISSUES_MARK.
// No runtime imports: the sandboxed preload bundles this file and can load no module (zod included).
import type { ApiError } from './api';

export const ISSUES_MARK = '\n[issues] ';

/** The message the preload throws for an API error. */
export function bridgeErrorText(e: ApiError): string {
  return `[${e.code}] ${e.error}${e.issues ? `${ISSUES_MARK}${JSON.stringify(e.issues)}` : ''}`;
}

/**
 * The parts of a message bridgeErrorText wrote, unchecked (the renderer checks them with the contract), with any
 * text Electron put in front dropped; null for a message it did not write (a bridge error of its own).
 */
export function bridgeErrorParts(message: string): { code: string; error: string; issues?: unknown } | null {
  const m = /^\[([a-z_]+)\] ([\s\S]*)$/.exec(message.replace(/^[\s\S]*?(?=\[[a-z_]+\] )/, ''));
  if (!m) return null;
  const [, code, rest] = m as unknown as [string, string, string];
  const at = rest.lastIndexOf(ISSUES_MARK);
  if (at < 0) return { code, error: rest };
  try {
    return { code, error: rest.slice(0, at), issues: JSON.parse(rest.slice(at + ISSUES_MARK.length)) as unknown };
  } catch {
    // Not our JSON: the mark was part of the message itself.
    return { code, error: rest };
  }
}
