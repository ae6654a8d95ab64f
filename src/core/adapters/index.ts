import { hpcaiCsvAdapter, hpcaiVisionAdapter } from './hpcai';
import { litgptAdapter } from './litgpt';
import { mllogAdapter } from './mllog';
import { protocolAdapter } from './protocol';
import { rateLinesAdapter } from './rate-lines';
import { regexAdapter } from './regex';
import { servingJsonAdapter, sglangAdapter, vllmAdapter } from './serving';
import { AdapterError, excerpt, firstLine, type AdapterOptions, type ThroughputAdapter, type ThroughputResult } from './types';

export * from './types';
export { compileUserPattern } from './regex';

/** Every adapter, in the order auto-detection breaks ties. */
export const adapters: readonly ThroughputAdapter[] = [
  protocolAdapter,
  mllogAdapter,
  hpcaiCsvAdapter,
  hpcaiVisionAdapter,
  litgptAdapter,
  sglangAdapter,
  vllmAdapter,
  servingJsonAdapter,
  rateLinesAdapter,
  regexAdapter,
];

export const adapterNames: readonly string[] = adapters.map((a) => a.name);

export function getAdapter(name: string): ThroughputAdapter | undefined {
  return adapters.find((a) => a.name === name);
}

/** The adapter that reads this text best, or null when none recognises it. */
export function detectAdapter(text: string): ThroughputAdapter | null {
  let best: ThroughputAdapter | null = null;
  let score = 0;
  for (const a of adapters) {
    const s = a.detect(text);
    if (s > score) {
      best = a;
      score = s;
    }
  }
  return best;
}

/**
 * Reads a finished log or result file. `adapter` is a name from `adapterNames` or `auto` (default).
 * Throws AdapterError naming the file (and line) on input it cannot read.
 */
export function readThroughput(text: string, opts: AdapterOptions & { adapter?: string } = {}): ThroughputResult {
  const file = opts.file ?? '<input>';
  const name = opts.adapter ?? (opts.pattern ? 'regex' : 'auto');
  let adapter: ThroughputAdapter | null | undefined;
  if (name === 'auto') {
    if (!text.trim()) throw new AdapterError('empty file', file, 1);
    adapter = detectAdapter(text);
    if (!adapter) {
      throw new AdapterError(`cannot tell which tool wrote this (first line: "${excerpt(firstLine(text), 60)}"); pass --adapter with one of ${adapterNames.join(', ')}`, file, 1);
    }
  } else {
    adapter = getAdapter(name);
    if (!adapter) throw new AdapterError(`unknown adapter "${name}"; known: auto, ${adapterNames.join(', ')}`, file, null);
  }
  return adapter.read(text, { ...opts, file });
}
