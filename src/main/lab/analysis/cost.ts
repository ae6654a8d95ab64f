// A tariff on the engine's side: its CSVs read by the facility planner's reader, its file (`caplab analyze --tariff`)
// read as the planner's `tariff:` block, and the cost attached to an analysis (src/core/analysis/cost.ts).
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { sweepCost } from '../../../core/analysis/cost';
import { CostTariff, type CostTariffInput } from '../../../shared/cost';
import type { AnalysisOptionsInput, AnalysisResult } from '../../../shared/analysis';
import { FacilityConfigError } from '../input/errors';
import { readYearCsv } from '../input/csv-file';

/** The analysis options of a stored sweep or sources, plus the tariff its cost and carbon are priced with. */
export type CostedAnalysisOptions = Omit<AnalysisOptionsInput, 'adaptive'> & { tariff?: CostTariffInput };

function parseTariff(raw: unknown, where: string): CostTariff {
  const r = CostTariff.safeParse(raw);
  if (r.success) return r.data;
  const lines = r.error.issues.map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message));
  throw new FacilityConfigError(`${where}: ${lines.join('; ')}`, lines.map((l) => `${where}: ${l}`));
}

/**
 * Attaches `cost` to the analysis when a tariff is given. CSV paths are read relative to `baseDir` (the CLI makes
 * them absolute); a CSV that cannot be read is an error naming its field and file, as in the planner.
 */
export function withCost(result: AnalysisResult, tariff: CostTariffInput | undefined, baseDir = process.cwd()): AnalysisResult {
  if (tariff === undefined) return result;
  const t = parseTariff(tariff, 'tariff');
  const opts = { baseDir };
  result.cost = sweepCost(result, t, {
    price: t.price_csv ? readYearCsv(t.price_csv, 'tariff.price_csv', opts) : undefined,
    carbon: t.carbon_csv ? readYearCsv(t.carbon_csv, 'tariff.carbon_csv', opts) : undefined,
  });
  return result;
}

/**
 * A tariff file: YAML (or JSON) holding the planner's `tariff:` block (price_per_mwh, price_csv, currency,
 * carbon_g_per_kwh, carbon_csv), alone or inside a facility config. Its CSV paths come back absolute (relative ones
 * are of the file's folder, as in a facility config).
 */
export function readTariffFile(file: string): CostTariffInput {
  let raw: unknown;
  try {
    raw = parseYaml(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new FacilityConfigError(`tariff ${file}: cannot read it: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  const block = typeof raw === 'object' && raw !== null && 'tariff' in raw ? (raw as { tariff: unknown }).tariff : raw;
  const t = parseTariff(block, `tariff ${file}`);
  const abs = (p: string | undefined) => (p === undefined || isAbsolute(p) ? p : resolve(dirname(resolve(file)), p));
  return { ...t, price_csv: abs(t.price_csv), carbon_csv: abs(t.carbon_csv) };
}
