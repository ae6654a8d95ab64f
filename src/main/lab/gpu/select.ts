/**
 * Backend choice. `auto` tries the registry's `auto` backends in order (NVML, nvidia-smi, amd-smi falling back to
 * rocm-smi, then the simulated GPUs) and says which it chose and why, e.g.
 * "nvml: libnvidia-ml.so.1 not found ...; nvidia-smi: not on PATH; amd-smi: not on PATH; rocm-smi: not on PATH;
 * using simulated GPUs". An explicit choice that cannot open throws a BackendError with the reason.
 */
import type { BackendChoice } from '../../../shared/device';
import { BackendError, type BackendModule, type LabBackend, type OpenContext, type OpenedGpus } from './backend';
import { backendRegistry, findBackend } from './registry';
import { PlanError } from '../input/errors';
import { trace } from '../process/trace';

export type OpenBackendOptions = Partial<OpenContext>;

/** A failure's words, prefixed with the backend's id unless they already name it ("amd-smi: …; rocm-smi: …"). */
export function failureReason(id: string, e: unknown): string {
  const m = e instanceof Error ? e.message : String(e);
  return m.startsWith(id) ? m : `${id}: ${m}`;
}

/** What a module opened, as the engine holds it (one shape for every backend: defaults filled in, the reason beside it). */
function held(opened: OpenedGpus, reason: string): LabBackend {
  return { backend: opened.backend, reason, timeScale: opened.timeScale ?? 1, reopenOpts: opened.reopenOpts ?? {}, sim: opened.sim ?? null };
}

export async function openBackend(choice: BackendChoice, opts: OpenBackendOptions = {}, registry: readonly BackendModule[] = backendRegistry): Promise<LabBackend> {
  const ctx: OpenContext = { ...opts, env: opts.env ?? process.env };
  trace(ctx.env, 'backend.open', { choice, look_only: ctx.lookOnly === true });
  if (choice !== 'auto') {
    const b = findBackend(choice, registry);
    if (!b) throw new BackendError(`no backend "${choice}" (known: ${registry.map((x) => x.id).join(', ')})`, choice, 'unavailable');
    const opened = await b.open(ctx);
    return held(opened, b.chosen(opened.backend, true));
  }
  const why: string[] = [];
  for (const b of registry.filter((x) => x.auto)) {
    try {
      const opened = await b.open(ctx);
      return held(opened, [...why, b.chosen(opened.backend, false)].join('; '));
    } catch (e) {
      // A plan the backend refuses (unknown simulated presets) is the plan's fault, not a reason to try the next.
      if (e instanceof PlanError) throw e;
      why.push(failureReason(b.id, e));
    }
  }
  throw new BackendError(`no backend could be opened: ${why.join('; ')}`, 'sim', 'unavailable');
}
