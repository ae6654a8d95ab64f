/**
 * The GPU and CPU-power backends, one line each: what the contract (`BackendName`, `BackendChoice`) and the pages
 * need to know. The engine's registry (`src/main/lab/gpu/registry.ts`) has one module per id, in the order `auto`
 * tries them; `test/unit/gpu/backend-registry.test.ts` checks the two lists name the same backends.
 * `choosable`: offered as `--backend` and in the pages (rocm-smi is opened through amd-smi, RAPL beside the GPUs).
 */
export const backendList = [
  { id: 'sim', label: 'simulated GPUs', choosable: true },
  { id: 'nvml', label: 'NVML (NVIDIA driver library)', choosable: true },
  { id: 'nvidia-smi', label: 'nvidia-smi (NVIDIA tool)', choosable: true },
  { id: 'amd-smi', label: 'amd-smi (AMD tool, falls back to rocm-smi)', choosable: true },
  { id: 'rocm-smi', label: 'rocm-smi (AMD tool)', choosable: false },
  { id: 'rapl', label: 'RAPL (CPU package power)', choosable: false },
] as const;

type Entry = (typeof backendList)[number];
export type BackendId = Entry['id'];
export type ChoosableId = Extract<Entry, { choosable: true }>['id'];

export const backendIds = backendList.map((b) => b.id) as [BackendId, ...BackendId[]];
export const backendChoices = ['auto', ...backendList.filter((b) => b.choosable).map((b) => b.id as ChoosableId)] as ['auto', ...ChoosableId[]];
/** `--backend`'s choices as a usage string shows them: `auto|sim|nvml|...`. */
export const backendUsage = backendChoices.join('|');
