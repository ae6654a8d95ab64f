/**
 * Backend choice. `auto` tries the registry's `auto` backends in order (NVML, nvidia-smi, amd-smi falling back to
 * rocm-smi, then the simulated GPUs) and says which it chose and why, e.g.
 * "nvml: libnvidia-ml.so.1 not found ...; nvidia-smi: not on PATH; amd-smi: not on PATH; rocm-smi: not on PATH;
 * using simulated GPUs". An explicit choice that cannot open throws a BackendError with the reason.
 */
import type { BackendChoice } from '../../../shared/device';
import { BackendError, type BackendModule, type OpenContext, type OpenedGpus } from './backend';
import { backendRegistry, findBackend } from './registry';
import { PlanError } from '../input/errors';

export type OpenBackendOptions = Partial<OpenContext>;

export interface OpenedBackend extends OpenedGpus {
  reason: string;
}

/** A failure's words, prefixed with the backend's id unless they already name it ("amd-smi: …; rocm-smi: …"). */
export function failureReason(id: string, e: unknown): string {
  const m = e instanceof Error ? e.message : String(e);
  return m.startsWith(id) ? m : `${id}: ${m}`;
}

export async function openBackend(choice: BackendChoice, opts: OpenBackendOptions = {}, registry: readonly BackendModule[] = backendRegistry): Promise<OpenedBackend> {
  const ctx: OpenContext = { ...opts, env: opts.env ?? process.env };
  if (choice !== 'auto') {
    const b = findBackend(choice, registry);
    if (!b) throw new BackendError(`no backend "${choice}" (known: ${registry.map((x) => x.id).join(', ')})`, choice, 'unavailable');
    const opened = await b.open(ctx);
    return { ...opened, reason: b.chosen(opened.backend, true) };
  }
  const why: string[] = [];
  for (const b of registry.filter((x) => x.auto)) {
    try {
      const opened = await b.open(ctx);
      return { ...opened, reason: [...why, b.chosen(opened.backend, false)].join('; ') };
    } catch (e) {
      // A plan the backend refuses (unknown simulated presets) is the plan's fault, not a reason to try the next.
      if (e instanceof PlanError) throw e;
      why.push(failureReason(b.id, e));
    }
  }
  throw new BackendError(`no backend could be opened: ${why.join('; ')}`, 'sim', 'unavailable');
}
