import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { backendChoices, backendList } from '../../../src/shared/backends';
import { BackendChoice, BackendName, type DeviceInfo } from '../../../src/shared/device';
import { BackendError, type BackendModule, type GpuBackend } from '../../../src/main/lab/gpu/backend';
import { autoOrder, backendRegistry } from '../../../src/main/lab/gpu/registry';
import { openBackend } from '../../../src/main/lab/gpu/select';
import { sourceFiles } from '../../helpers/source-files';

/** A backend that opens or refuses as told, with one GPU. */
function fakeModule(id: string, opens: boolean, auto = true): BackendModule {
  const device = { id: `${id}:0`, index: 0, backend: id, kind: 'gpu', name: `${id} GPU`, vendor: 'test', simulated: false } as unknown as DeviceInfo;
  const backend = { name: id, simulated: false, listDevices: async () => [device], close: async () => {} } as unknown as GpuBackend;
  return {
    id: id as BackendModule['id'],
    auto,
    vendor: 'none',
    open: async () => {
      if (!opens) throw new BackendError(`${id}: not here`, id as BackendModule['id'], 'unavailable');
      return { backend };
    },
    chosen: (_b, requested) => (requested ? `${id} requested` : `using ${id}`),
  };
}

describe('backend registry', () => {
  it('registers every backend the contract names exactly once, and nothing else', () => {
    const registered = backendRegistry.map((b) => b.id);
    expect(new Set(registered).size).toBe(registered.length);
    expect([...registered].sort()).toEqual(backendList.map((b) => b.id).sort());
    expect(BackendName.options).toEqual(backendList.map((b) => b.id));
    expect(BackendChoice.options).toEqual(['auto', ...backendList.filter((b) => b.choosable).map((b) => b.id)]);
    expect(backendChoices).toEqual(BackendChoice.options);
  });

  it('auto tries the registry in order and ends with the simulated GPUs', () => {
    expect(autoOrder()).toEqual(['nvml', 'nvidia-smi', 'amd-smi', 'sim']);
  });

  it('no file outside the two lists spells out the backends by hand', () => {
    // A hand-written list of backend ids (two or more in a row) anywhere else would be a copy to keep in step.
    const ids = backendList.map((b) => b.id.replace('-', '\\-')).join('|');
    const list = new RegExp(`['"](?:${ids})['"]\\s*,\\s*['"](?:${ids})['"]`);
    // amd-smi.ts lists the two AMD tools it falls back between (a tool order, not a list of backends).
    const allowed = [join('shared', 'backends.ts'), join('gpu', 'amd-smi.ts')];
    const offenders = sourceFiles(join(process.cwd(), 'src')).filter((f) => !allowed.some((a) => f.endsWith(a)) && list.test(readFileSync(f, 'utf8')));
    expect(offenders).toEqual([]);
  });

  it('a module added to a registry is opened by name and found by auto, in order, saying why', async () => {
    const registry = [fakeModule('first', false), fakeModule('extra', true), ...backendRegistry];
    const auto = await openBackend('auto', { env: {} }, registry);
    expect(auto.backend.name).toBe('extra');
    expect(auto.reason).toBe('first: not here; using extra');
    const named = await openBackend('extra' as BackendChoice, { env: {} }, registry);
    expect(named.reason).toBe('extra requested');
    expect(await named.backend.listDevices()).toMatchObject([{ id: 'extra:0' }]);
    await expect(openBackend('nope' as BackendChoice, { env: {} }, registry)).rejects.toThrow(/no backend "nope" \(known: first, extra, nvml/);
  });

  it('auto names every refusal when nothing opens', async () => {
    await expect(openBackend('auto', { env: {} }, [fakeModule('a', false), fakeModule('b', false), fakeModule('c', true, false)])).rejects.toThrow('no backend could be opened: a: not here; b: not here');
  });
});
