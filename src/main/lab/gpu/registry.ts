/**
 * The backends, one line each, in the order `auto` tries them (src/shared/backends.ts names the same ids for the
 * contract and the pages). Adding a backend: its module exporting a `BackendModule`, one line here and one there.
 */
import type { BackendName } from '../../../shared/device';
import { amdSmiBackend, rocmSmiBackend } from './amd-smi';
import type { BackendModule } from './backend';
import { nvidiaSmiBackend } from './nvidia-smi';
import { nvmlBackend } from './nvml';
import { raplBackend } from './rapl';
import { simBackend } from './sim';

export const backendRegistry: readonly BackendModule[] = [
  nvmlBackend,
  nvidiaSmiBackend,
  amdSmiBackend,
  rocmSmiBackend,
  raplBackend,
  simBackend,
];

export function findBackend(id: string, registry: readonly BackendModule[] = backendRegistry): BackendModule | undefined {
  return registry.find((b) => b.id === id);
}

/** The ids `auto` tries, in order (for help texts). */
export function autoOrder(registry: readonly BackendModule[] = backendRegistry): BackendName[] {
  return registry.filter((b) => b.auto).map((b) => b.id);
}
