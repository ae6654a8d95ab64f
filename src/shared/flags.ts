// The one list of analysis flags: what each means, how severe it is, whether it takes a run or a cap out of the
// decisions, and whether a run's flag is carried to its cap. The analysis emits only these (AnalysisFlag is built
// from the ids); the Results page, the report, `caplab analyze` and docs/user-guide.md read their text from here.

export type FlagSeverity = 'error' | 'warn' | 'info';

/** What a flag takes out of the decisions (statistics, best cap, Pareto front, sensitivity). */
export type FlagExcludes =
  /** Nothing: the flag informs. */
  | null
  /** The run: it has no usable figure (failed, no window, no energy, no throughput). */
  | 'run'
  /** The run, unless the analysis is asked to include flagged runs (`--include-flagged`, include_flagged). */
  | 'run-unless-include-flagged'
  /** The cap, unless the analysis is asked to count caps not enforced (`--include-unenforced`). */
  | 'cap-unless-include-unenforced'
  /** The cap: it is the mark of a cap left out (its reason says why). */
  | 'cap';

export interface FlagInfo {
  id: string;
  /** Short label for chips and legends. */
  label: string;
  severity: FlagSeverity;
  /** One line: what it means. */
  meaning: string;
  excludes: FlagExcludes;
  /** Raised on a run and also shown on its cap (the cap table, chips, the report's flags table). */
  at_cap: boolean;
}

export const flagList = [
  { id: 'run-failed', label: 'run failed', severity: 'error', meaning: 'a run did not finish', excludes: 'run', at_cap: false },
  { id: 'no-window', label: 'no window', severity: 'error', meaning: 'a run has no measurement window', excludes: 'run', at_cap: false },
  { id: 'empty-window', label: 'empty window', severity: 'error', meaning: 'no readings inside the measurement window', excludes: 'run', at_cap: false },
  { id: 'missing-energy', label: 'no energy', severity: 'error', meaning: 'energy could not be computed', excludes: 'run', at_cap: false },
  { id: 'missing-throughput', label: 'no throughput', severity: 'error', meaning: 'the workload reported no throughput', excludes: 'run', at_cap: false },
  { id: 'bad-readings', label: 'bad readings', severity: 'warn', meaning: 'invalid sensor readings were dropped', excludes: null, at_cap: true },
  { id: 'average-sensor', label: '1 s average sensor', severity: 'info', meaning: 'power from a 1 s averaging sensor (lags)', excludes: null, at_cap: true },
  { id: 'short-window', label: 'short window', severity: 'warn', meaning: 'measurement window too short for the sensor', excludes: null, at_cap: true },
  {
    id: 'counter-reset',
    label: 'counter reset',
    severity: 'warn',
    meaning: 'the energy counter went backwards inside the window (a reset or wrap); the energy is summed over the pieces either side of it, so the reading at the reset is lost',
    excludes: null,
    at_cap: true,
  },
  { id: 'counter-extrapolated', label: 'counter extrapolated', severity: 'info', meaning: 'counter readings extrapolated to the window edges', excludes: null, at_cap: true },
  { id: 'sensor-disagreement', label: 'sensors disagree', severity: 'warn', meaning: 'energy counter and power readings disagree', excludes: null, at_cap: true },
  { id: 'power-gap', label: 'power gap', severity: 'info', meaning: 'gaps between power readings', excludes: null, at_cap: true },
  { id: 'low-coverage', label: 'low coverage', severity: 'warn', meaning: 'the power series covers under 90 % of the window (readings missing or late)', excludes: null, at_cap: true },
  { id: 'no-steady-state', label: 'no steady state', severity: 'warn', meaning: 'throughput or power did not settle in the window', excludes: 'run-unless-include-flagged', at_cap: true },
  { id: 'warmup-in-window', label: 'warm-up in window', severity: 'warn', meaning: 'the warm-up reaches into the measurement window', excludes: 'run-unless-include-flagged', at_cap: true },
  { id: 'not-enforced', label: 'not enforced', severity: 'error', meaning: 'the device did not hold the cap', excludes: 'cap-unless-include-unenforced', at_cap: false },
  { id: 'power-above-cap', label: 'power above cap', severity: 'warn', meaning: 'mean power above the cap', excludes: null, at_cap: false },
  { id: 'limit-mismatch', label: 'limit mismatch', severity: 'warn', meaning: 'the enforced limit differs from the cap asked for', excludes: null, at_cap: false },
  { id: 'spikes-above-cap', label: 'spikes above cap', severity: 'info', meaning: 'short power spikes above the cap', excludes: null, at_cap: false },
  { id: 'single-repetition', label: 'single repetition', severity: 'info', meaning: 'one repetition: no confidence interval', excludes: null, at_cap: false },
  { id: 'high-variance', label: 'high variance', severity: 'warn', meaning: 'repetitions disagree (coefficient of variation above the threshold)', excludes: null, at_cap: false },
  { id: 'drift', label: 'drift', severity: 'warn', meaning: 'throughput trends across repetitions', excludes: null, at_cap: false },
  { id: 'excluded', label: 'excluded', severity: 'error', meaning: 'not counted in the best cap', excludes: 'cap', at_cap: false },
] as const satisfies readonly FlagInfo[];

export type FlagId = (typeof flagList)[number]['id'];
export const flagIds = flagList.map((f) => f.id) as [FlagId, ...FlagId[]];

export function flagInfo(id: FlagId): FlagInfo {
  return flagList.find((f) => f.id === id)!;
}

/** Run flags that leave the run out of the decisions unless include_flagged. */
export const FLAGS_EXCLUDING_RUNS: readonly FlagId[] = flagList.filter((f) => f.excludes === 'run-unless-include-flagged').map((f) => f.id);

/** Run flags also shown on the run's cap. */
export const FLAGS_AT_CAP: readonly FlagId[] = flagList.filter((f) => f.at_cap).map((f) => f.id);

/** What a flag does to the decisions, in words (the report's legend, the docs, `caplab analyze`). */
export function flagEffect(f: Pick<FlagInfo, 'excludes'>): string {
  switch (f.excludes) {
    case null:
      return 'informs; nothing is left out';
    case 'run':
      return 'the run has no usable figure and is left out';
    case 'run-unless-include-flagged':
      return 'the run is left out of the statistics and the best cap (--include-flagged keeps it)';
    case 'cap-unless-include-unenforced':
      return 'the cap is left out of the best cap (--include-unenforced keeps it)';
    case 'cap':
      return 'the cap is left out of the best cap; its reason says why';
  }
}
