// For the registry tests: the app's source files, and which of them spell out a registry's names as a list by hand.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

export function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? sourceFiles(p) : /\.tsx?$/.test(n) ? [p] : [];
  });
}

/** A quoted name of `ids` ('a' or "a"); `pair`: two of them one after the other, as a list written by hand has. */
export function quotedNames(ids: readonly string[], pair = false): RegExp {
  const one = `['"](?:${ids.map((s) => s.replace(/-/g, '\\-')).join('|')})['"]`;
  return new RegExp(pair ? `${one}\\s*,\\s*${one}` : one);
}

/** Files under src/ (but `except`, a path ending) that list two or more of `ids` by hand. */
export function listsByHand(ids: readonly string[], except: string): string[] {
  const list = quotedNames(ids, true);
  return sourceFiles(join(process.cwd(), 'src')).filter((f) => !f.endsWith(except) && list.test(readFileSync(f, 'utf8')));
}
