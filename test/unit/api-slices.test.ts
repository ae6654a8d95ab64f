// The contract is composed in src/shared/api/index.ts by spreading one slice per feature: a spread keeps the later of
// two equal names without a word, and a slice left out of index.ts would simply not exist to the faces. Read every
// slice in the folder and check that the composed contract holds each of its methods and events, exactly once, and
// that the table of slices the engine serves by (`slices`) names each slice's methods once.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { events, methods, slices } from '../../src/shared/api';

const dir = join(process.cwd(), 'src/shared/api');

type Entries = { slice: string; kind: 'methods' | 'events'; name: string; value: unknown }[];

/** Each slice file's exports, by file. */
async function sliceModules(): Promise<{ file: string; mod: Record<string, unknown> }[]> {
  const files = readdirSync(dir).filter((f) => f.endsWith('.ts') && f !== 'index.ts');
  return Promise.all(files.map(async (file) => ({ file, mod: (await import(join(dir, file))) as Record<string, unknown> })));
}

async function sliceEntries(): Promise<Entries> {
  const out: Entries = [];
  for (const { file, mod } of await sliceModules()) {
    for (const [exported, value] of Object.entries(mod)) {
      const kind = exported.endsWith('Methods') ? 'methods' : exported.endsWith('Events') ? 'events' : null;
      if (!kind || typeof value !== 'object' || value === null) continue;
      for (const [name, entry] of Object.entries(value)) out.push({ slice: `${file}:${exported}`, kind, name, value: entry });
    }
  }
  return out;
}

describe('contract slices (src/shared/api/)', () => {
  it('every slice file adds methods or events', async () => {
    const entries = await sliceEntries();
    const files = readdirSync(dir).filter((f) => f.endsWith('.ts') && f !== 'index.ts');
    expect(files.length).toBeGreaterThanOrEqual(10);
    for (const f of files) expect(entries.some((e) => e.slice.startsWith(`${f}:`)), f).toBe(true);
  });

  it('names each method and event in one slice only', async () => {
    const seen = new Map<string, string[]>();
    for (const e of await sliceEntries()) seen.set(`${e.kind} ${e.name}`, [...(seen.get(`${e.kind} ${e.name}`) ?? []), e.slice]);
    expect([...seen].filter(([, slices]) => slices.length > 1)).toEqual([]);
  });

  it('names each slice\'s methods once in `slices`, the table the engine serves by', async () => {
    const objects = (await sliceModules()).flatMap(({ mod }) => Object.entries(mod).filter(([name]) => name.endsWith('Methods')).map(([, value]) => value));
    const tabled: unknown[] = Object.values(slices);
    expect(tabled).toHaveLength(objects.length);
    for (const o of objects) expect(tabled.filter((t) => t === o)).toHaveLength(1);
  });

  it('composes exactly the slices\' methods and events, each the slice\'s own schema', async () => {
    const entries = await sliceEntries();
    const composed = { methods: methods as Record<string, unknown>, events: events as Record<string, unknown> };
    for (const kind of ['methods', 'events'] as const) {
      const mine = entries.filter((e) => e.kind === kind);
      expect(Object.keys(composed[kind]).sort(), kind).toEqual(mine.map((e) => e.name).sort());
      for (const e of mine) expect(composed[kind][e.name], `${kind} ${e.name} from ${e.slice}`).toBe(e.value);
    }
  });
});
