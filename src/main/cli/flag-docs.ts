// The flag docs several commands share; each command describes its own flags beside them (defineCommand in command.ts).
import { backendList } from '../../shared/backends';
import { selectorList } from '../../shared/selectors';
import { BackendChoice } from '../../shared/device';
import { autoOrder } from '../lab/basics';

/** What a flag does, its default and an example, as `caplab NAME --help` prints it. */
export interface FlagDoc {
  text: string;
  default?: string;
  example?: string;
  /** The value's placeholder (FILE, W, ID); flags without one take no value. */
  value?: string;
}

/** `--backend`: the choices and the order auto tries them in, from the backend registry. */
export function backendHelp(): string {
  const choices = BackendChoice.options;
  const label = (id: string) => backendList.find((b) => b.id === id)?.label ?? id;
  return (
    `Which GPUs to drive: ${choices.slice(0, -1).join(', ')} or ${choices.at(-1)}. ` +
    `auto tries ${autoOrder().join(', then ')}, and says which it chose and why. ` +
    `${choices.filter((c) => c !== 'auto').map((c) => `${c}: ${label(c)}`).join('; ')}.`
  );
}

/** Flags several commands share, described once. */
export const COMMON = {
  db: { value: 'FILE', text: 'The lab database (SQLite) to read and write.', default: '$CAPLAB_DB, else caplab.db in the data folder ($CAPLAB_DATA_DIR or the platform\'s per-user data folder)', example: '--db ./lab.db' },
  backend: {
    value: 'NAME',
    text: backendHelp(),
    default: 'auto (sweep: the plan\'s backend)',
    example: '--backend sim',
  },
  json: { text: 'Print exactly one JSON document on stdout (messages go to stderr); its fields are a stable scripting interface.', default: 'off (a table for people)' },
} satisfies Record<string, FlagDoc>;

/** The analysis flags of analyze, report and export (src/main/cli/analysis-options.ts), described once. */
export const ANALYSIS = {
  overhead: { value: 'W', text: 'Node overhead added to GPU power for the efficiency (units per joule of GPU + overhead energy).', default: 'the plan\'s overhead_w', example: '--overhead 150' },
  selector: { value: 'NAME', text: `How the best cap is chosen (marked * in the table): ${selectorList.map((s) => `${s.id} (${s.help})`).join(', ')}.`, default: 'max-efficiency', example: '--selector min-energy-slowdown' },
  slowdown: { value: 'FRACTION', text: 'Slowdown budget of min-energy-slowdown, as a fraction of the fastest cap\'s throughput (0.1 = at most 10 % slower).', default: '0.1', example: '--slowdown 0.05' },
  weight: { value: 'W', text: 'For --selector weighted: weight of time (0..1); energy gets 1 - W.', default: '0.5', example: '--weight 0.3' },
  'include-unenforced': { text: 'Also count caps the device did not enforce (its limit stayed above the cap); they are excluded by default.', default: 'off' },
  'include-flagged': { text: 'Also let runs flagged no-steady-state or warmup-in-window decide the best cap, Pareto front and sensitivity; they are left out by default (listed per cap in excluded_runs).', default: 'off' },
  margin: { value: 'FRACTION', text: 'Practical margin of the equivalence judgement: a cap within this fraction of the best cap\'s value counts as equally good.', default: '0.02 (2 %)', example: '--margin 0.05' },
  'price-per-mwh': { value: 'N', text: 'Electricity price per MWh: adds the cost of each run\'s node energy (the energy units/J counts), per cap with the cost per 1,000,000 work units, and the sweep total ("cost and carbon"; JSON `cost`).', default: 'no cost shown', example: '--price-per-mwh 85' },
  'grid-g-per-kwh': { value: 'N', text: 'Grid carbon intensity, g CO2e per kWh: adds kg CO2e beside the cost, likewise (the planner\'s tariff.carbon_g_per_kwh).', default: 'no carbon shown', example: '--grid-g-per-kwh 380' },
  currency: { value: 'C', text: 'Currency the price is in (a label).', default: 'the --tariff file\'s, else USD', example: '--currency EUR' },
  tariff: { value: 'FILE', text: 'A tariff as the facility planner reads it: YAML with its tariff block (price_per_mwh, price_csv, currency, carbon_g_per_kwh, carbon_csv), alone or in a facility config; CSV paths are relative to the file. The flags above override its values.', example: '--tariff site-tariff.yaml' },
  'price-csv': { value: 'FILE', text: 'Hourly prices per MWh as timestamp,value CSV (the planner\'s price_csv, looped yearly): each run pays the time-weighted mean over its window, its energy spread evenly. Replaces --price-per-mwh.', example: '--price-csv prices-2025.csv' },
  'carbon-csv': { value: 'FILE', text: 'Hourly grid intensity (g CO2e/kWh) as timestamp,value CSV (the planner\'s carbon_csv), likewise. Replaces --grid-g-per-kwh.', example: '--carbon-csv grid-2025.csv' },
} satisfies Record<string, FlagDoc>;

/** --limit and --cursor of the paged listings (runs, samples): a page, and the page after a printed cursor. */
export function paging(limit: string, all: string, example: number): Record<'limit' | 'cursor', FlagDoc> {
  return {
    limit: { value: 'N', text: `${limit} Without --json the next page's cursor goes to stderr.`, default: all, example: `--limit ${example}` },
    cursor: { value: 'C', text: 'The page after the one that printed this cursor (its next).', default: 'the first page', example: '--cursor eyJzIjoi...' },
  };
}

/** The flags every command that takes them gets COMMON's doc for, unless it describes them itself. */
export type CommonFlag = keyof typeof COMMON;

/** COMMON's doc of a flag; undefined for any other flag. */
export function commonFlagDoc(flag: string): FlagDoc | undefined {
  return Object.hasOwn(COMMON, flag) ? COMMON[flag as CommonFlag] : undefined;
}
