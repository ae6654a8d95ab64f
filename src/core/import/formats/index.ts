// The import formats' modules, one line each, keyed by the names in `importerList` (src/shared/importers.ts); the
// type requires one module per name. Detection order is each rule's priority, not this order.
import type { ImportFormat } from '../../../shared/dataset';
import type { FormatModule } from '../format-module';
import { caplabJsonFormat } from './caplab-json';
import { codecarbonFormat } from './codecarbon';
import { dcgmDmonFormat } from './dcgm-dmon';
import { facilityFormat } from './facility';
import { hpcaiRocmSmiFormat } from './hpcai-rocm-smi';
import { nlrParquetFormat } from './nlr-parquet';
import { nvidiaSmiFormat } from './nvidia-smi';
import { prometheusFormat } from './prometheus';
import { wattameterFormat } from './wattameter';
import { zeusFormat } from './zeus';

export const importerModules: { readonly [F in ImportFormat]: FormatModule<F> } = {
  'nvidia-smi': nvidiaSmiFormat,
  wattameter: wattameterFormat,
  'dcgm-dmon': dcgmDmonFormat,
  'hpcai-rocm-smi': hpcaiRocmSmiFormat,
  prometheus: prometheusFormat,
  zeus: zeusFormat,
  codecarbon: codecarbonFormat,
  'facility-csv': facilityFormat,
  'caplab-json': caplabJsonFormat,
  'nlr-parquet': nlrParquetFormat,
};

export function formatModule(format: ImportFormat): FormatModule {
  return importerModules[format];
}

/** The counter lag of an imported device's format (its `backend`), 0 for anything that is no import format. */
export function counterLagOf(format: string): number {
  return Object.hasOwn(importerModules, format) ? (importerModules[format as ImportFormat].counterLagS ?? 0) : 0;
}
