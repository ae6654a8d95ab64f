import { CliError, numberOpt, stringOpt, type CliArgs } from './command';
import { resolve } from 'node:path';
import { Selector, SELECTORS } from '../../shared/analysis';
import type { CostTariffInput } from '../../shared/cost';
import { readTariffFile, type CostedAnalysisOptions } from '../lab';

/** The analysis flags `caplab analyze` takes; `caplab report` takes the same, so its numbers are analyze's. */
export const analysisOptions = {
  overhead: { type: 'string' },
  selector: { type: 'string' },
  slowdown: { type: 'string' },
  weight: { type: 'string' },
  'include-unenforced': { type: 'boolean' },
  'include-flagged': { type: 'boolean' },
  margin: { type: 'string' },
  'price-per-mwh': { type: 'string' },
  'grid-g-per-kwh': { type: 'string' },
  currency: { type: 'string' },
  tariff: { type: 'string' },
  'price-csv': { type: 'string' },
  'carbon-csv': { type: 'string' },
} as const;

/** --tariff FILE, then the flags over it (a flag wins); undefined when none is given (no cost and carbon). */
function tariffOf(args: CliArgs): CostTariffInput | undefined {
  const rate = (flag: string) => {
    const v = numberOpt(args, flag);
    if (v !== undefined && !(v >= 0)) throw new CliError(`--${flag} must be a number >= 0, got "${stringOpt(args, flag)}"`);
    return v;
  };
  const file = stringOpt(args, 'tariff');
  const csv = (flag: string) => {
    const v = stringOpt(args, flag);
    return v === undefined ? undefined : resolve(v);
  };
  const flags: CostTariffInput = { price_per_mwh: rate('price-per-mwh'), carbon_g_per_kwh: rate('grid-g-per-kwh'), currency: stringOpt(args, 'currency'), price_csv: csv('price-csv'), carbon_csv: csv('carbon-csv') };
  const given = Object.fromEntries(Object.entries(flags).filter(([, v]) => v !== undefined)) as CostTariffInput;
  if (file === undefined && Object.keys(given).length === 0) return undefined;
  const t = { ...(file === undefined ? {} : readTariffFile(file)), ...given };
  if (t.price_per_mwh === undefined && t.price_csv === undefined && t.carbon_g_per_kwh === undefined && t.carbon_csv === undefined) {
    throw new CliError('--currency needs a price or an intensity: --price-per-mwh N, --grid-g-per-kwh N, --price-csv FILE, --carbon-csv FILE or --tariff FILE');
  }
  return t;
}

export function analysisOptionsOf(args: CliArgs): CostedAnalysisOptions {
  const sel = stringOpt(args, 'selector');
  const selector = sel === undefined ? undefined : Selector.safeParse(sel);
  if (selector && !selector.success) throw new CliError(`--selector must be one of ${SELECTORS.join(', ')}; got "${sel}"`);
  const overhead = numberOpt(args, 'overhead');
  if (overhead !== undefined && overhead < 0) throw new CliError('--overhead must be >= 0 W');
  const slowdown = numberOpt(args, 'slowdown');
  if (slowdown !== undefined && slowdown < 0) throw new CliError('--slowdown must be >= 0 (a fraction: 0.1 = 10 % slower)');
  const weight = numberOpt(args, 'weight');
  if (weight !== undefined && (weight < 0 || weight > 1)) throw new CliError('--weight must be between 0 and 1');
  const margin = numberOpt(args, 'margin');
  if (margin !== undefined && !(margin > 0 && margin < 1)) throw new CliError('--margin must be a fraction between 0 and 1 (0.02 = within 2 % of the best)');
  return {
    overhead_w: overhead ?? null,
    selector: selector?.data,
    slowdown_budget: slowdown,
    weight,
    include_unenforced: args.values['include-unenforced'] === true,
    include_flagged: args.values['include-flagged'] === true,
    ...(margin !== undefined ? { margin } : {}),
    tariff: tariffOf(args),
  };
}
