import { CliError, numberOpt, stringOpt, type CliArgs } from './command';
import { Selector, SELECTORS, type AnalysisOptionsInput } from '../../shared/analysis';

/** The analysis flags `caplab analyze` takes; `caplab report` takes the same, so its numbers are analyze's. */
export const analysisOptions = {
  overhead: { type: 'string' },
  selector: { type: 'string' },
  slowdown: { type: 'string' },
  weight: { type: 'string' },
  'include-unenforced': { type: 'boolean' },
  'include-flagged': { type: 'boolean' },
  margin: { type: 'string' },
} as const;

export function analysisOptionsOf(args: CliArgs): Omit<AnalysisOptionsInput, 'adaptive'> {
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
  };
}
