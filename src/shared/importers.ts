/**
 * The import formats, one line each: what the contract (`ImportFormat`, hence `caplab import --format` and the
 * app's import) and the Datasets page need to know. Order = the order `--format` lists them in. The engine's
 * modules (`importerModules` in `src/core/import/formats/index.ts`, typed to require one per id) hold each
 * format's detector, with its priority, and its reader; `test/unit/import/importer-registry.test.ts` checks both.
 * `label`: the format in words, as the Datasets page's drop zone names what it takes.
 */
export const importerList = [
  { id: 'nvidia-smi', label: 'nvidia-smi CSV' },
  { id: 'wattameter', label: 'WattAMeter' },
  { id: 'dcgm-dmon', label: 'dcgmi dmon' },
  { id: 'hpcai-rocm-smi', label: 'hpc-ai-perf-bench AMD sampler (rocm_smi.py)' },
  { id: 'prometheus', label: 'Prometheus JSON' },
  { id: 'zeus', label: 'Zeus' },
  { id: 'codecarbon', label: 'CodeCarbon' },
  { id: 'facility-csv', label: 'NLR facility profiles' },
  { id: 'caplab-json', label: 'CapLab JSON exports' },
  { id: 'nlr-parquet', label: 'NLR Parquet profiles' },
] as const satisfies readonly { id: string; label: string }[];

export type ImportFormatId = (typeof importerList)[number]['id'];
export const importFormatIds = importerList.map((i) => i.id) as [ImportFormatId, ...ImportFormatId[]];
