// The engine serves the contract by assembling one service per slice (src/main/lab/engine.ts): the types make a
// method missing from its service a compile error; this checks the same at run time, and that the engine's method
// of each name is the one of the slice that declares it, not another service's of the same name.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { methodNames, methodsOf, sliceNames, type MethodName, type SliceName } from '../../src/shared/api';
import { buildServices, Engine } from '../../src/main/lab/engine';
import type { EngineContext } from '../../src/main/lab/engine-context';

type Callable = (input: unknown) => Promise<unknown>;

// The services only keep the context when they are built; none is called here.
const services = buildServices({} as EngineContext, () => Promise.reject(new Error('no printing here')));
const table = services as unknown as Record<SliceName, Record<string, unknown>>;

const sliceOf = (m: MethodName) => sliceNames.filter((s) => methodsOf(s).includes(m));

afterEach(() => {
  vi.restoreAllMocks();
});

describe('the engine\'s services', () => {
  it('has one service per slice, and every contract method is in exactly one slice', () => {
    expect(Object.keys(services).sort()).toEqual([...sliceNames].sort());
    for (const m of methodNames) expect(sliceOf(m), m).toHaveLength(1);
  });

  it('serves each contract method by exactly one service: the one of the slice that declares it', () => {
    for (const m of methodNames) {
      const servers = sliceNames.filter((s) => typeof table[s][m] === 'function');
      expect(servers, m).toEqual(sliceOf(m));
    }
  });

  it('exposes every contract method, each reaching its slice\'s service with the input as given', async () => {
    const spies = new Map<MethodName, ReturnType<typeof vi.spyOn>>();
    for (const s of sliceNames) {
      const proto = Object.getPrototypeOf(table[s]) as Record<string, Callable>;
      for (const m of methodsOf(s)) spies.set(m, vi.spyOn(proto, m).mockImplementation(async () => ({ served: m })));
    }
    const engine = await Engine.open({ dbPath: ':memory:' });
    try {
      for (const m of methodNames) {
        const input = { for: m };
        expect(typeof engine[m], m).toBe('function');
        expect(await (engine[m] as Callable)(input), m).toEqual({ served: m });
        expect(spies.get(m)!.mock.calls, m).toEqual([[input]]);
      }
    } finally {
      vi.restoreAllMocks();
      await engine.close();
    }
  });

  it('keeps the calls beyond the contract under their names', async () => {
    const engine = await Engine.open({ dbPath: ':memory:' });
    try {
      const extras = ['beginSweep', 'beginTune', 'checkPlan', 'validateChecked', 'importPaths', 'submitClusterJob', 'clusterTaskRuns', 'runFacilityFile', 'searchFacilityHostFile', 'cancelAll', 'migrationNote', 'subscribe', 'close'] as const;
      for (const name of extras) expect(typeof engine[name], name).toBe('function');
      expect(await engine.health({})).toMatchObject({ ok: true, backend: 'auto' });
      expect(engine.restoredAtOpen).toEqual([]);
      expect(engine.files).toBeDefined();
    } finally {
      await engine.close();
    }
  });
});
