// The "Tune a job" form: what the user types, turned into startTune's input (src/shared/tune.ts). Pure, so it is
// unit-tested without a DOM. The command line is split into an argv here and shown back: nothing runs in a shell.
import { TuneStart, TUNE_OPTION_DEFAULTS } from '../../shared/tune';
import type { BackendChoice } from '../../shared/device';
import type { Selector } from '../../shared/analysis';
import type { z } from 'zod';

export interface TuneForm {
  /** The job as one line, split like a shell splits words (quotes, backslashes), without any expansion. */
  line: string;
  /** The folder it runs in; blank: the engine's own. */
  cwd: string;
  backend: BackendChoice;
  devices: string;
  selector: Selector;
  /** `--caps`: FROM:TO:STEP or a list; blank: a coarse grid over the device's range. */
  caps: string;
  adapter: string;
  file: string;
  pattern: string;
  units: string;
  marginPct: number;
  maxSharePct: number;
  jobSeconds: number;
  overheadW: number;
  simSpeedup: number;
  simDevices: string;
  /** `--hold W`: watts to hold without profiling; blank: profile. */
  hold: string;
  seed: number;
  rateTimeoutS: number;
  hangTimeoutS: number;
}

/** The fields under the page's "Advanced" disclosure (it opens by itself when one of them has a problem). */
export const ADVANCED_TUNE_FIELDS = ['hold', 'seed', 'rateTimeoutS', 'hangTimeoutS'] as const satisfies readonly (keyof TuneForm)[];

export const defaultTuneForm: TuneForm = {
  line: '',
  cwd: '',
  backend: 'auto',
  devices: '0',
  selector: 'max-efficiency',
  caps: '',
  adapter: 'auto',
  file: '',
  pattern: '',
  units: '',
  marginPct: TUNE_OPTION_DEFAULTS.margin * 100,
  maxSharePct: TUNE_OPTION_DEFAULTS.max_profile_share * 100,
  jobSeconds: TUNE_OPTION_DEFAULTS.job_seconds,
  overheadW: TUNE_OPTION_DEFAULTS.overhead_w,
  simSpeedup: 1,
  simDevices: '',
  hold: '',
  seed: 1,
  rateTimeoutS: TUNE_OPTION_DEFAULTS.rate_timeout_s,
  hangTimeoutS: TUNE_OPTION_DEFAULTS.hang_timeout_s,
};

/** Words of a command line: '…' keeps everything, "…" and a backslash escape; $, *, ;, | are plain characters. */
export function splitCommandLine(line: string): { argv: string[]; error: string | null } {
  const argv: string[] = [];
  let word: string | null = null;
  let quote: "'" | '"' | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote === "'") {
      if (c === "'") quote = null;
      else word += c;
    } else if (c === '\\' && i + 1 < line.length && (quote === null || '"\\'.includes(line[i + 1]!))) {
      word = (word ?? '') + line[++i];
    } else if (quote === '"') {
      if (c === '"') quote = null;
      else word += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      word = word ?? '';
    } else if (/\s/.test(c)) {
      if (word !== null) argv.push(word);
      word = null;
    } else word = (word ?? '') + c;
  }
  if (quote) return { argv: [], error: `the command has an unclosed ${quote === '"' ? 'double' : 'single'} quote` };
  if (word !== null) argv.push(word);
  return { argv, error: null };
}

export type TuneField = keyof TuneForm;
export interface TuneProblem {
  field: TuneField;
  message: string;
}

/** Which form field shows a problem of startTune's input at `path`. */
const FIELD_OF: Partial<Record<keyof z.input<typeof TuneStart>, TuneField>> = {
  argv: 'line',
  cwd: 'cwd',
  devices: 'devices',
  caps: 'caps',
  adapter: 'adapter',
  file: 'file',
  pattern: 'pattern',
  units: 'units',
  margin: 'marginPct',
  max_profile_share: 'maxSharePct',
  job_seconds: 'jobSeconds',
  overhead_w: 'overheadW',
  sim_speedup: 'simSpeedup',
  sim_devices: 'simDevices',
  hold_w: 'hold',
  seed: 'seed',
  rate_timeout_s: 'rateTimeoutS',
  hang_timeout_s: 'hangTimeoutS',
};

const blankToNull = (s: string) => (s.trim() === '' ? null : s.trim());
const list = (s: string) => s.split(/[\s,]+/).filter(Boolean);

/** startTune's input from the form, checked with the contract's schema; problems are named at their fields. */
export function tuneInputOf(form: TuneForm): { input: z.input<typeof TuneStart> | null; argv: string[]; problems: TuneProblem[] } {
  const split = splitCommandLine(form.line);
  const problems: TuneProblem[] = split.error ? [{ field: 'line', message: split.error }] : [];
  const sim = list(form.simDevices);
  const hold = blankToNull(form.hold);
  const holdW = hold === null ? null : Number(hold);
  if (holdW !== null && !Number.isFinite(holdW)) problems.push({ field: 'hold', message: `hold: "${hold}" is not a number of watts (like 300); leave it blank to profile` });
  const input: z.input<typeof TuneStart> = {
    argv: split.argv,
    ...(form.cwd.trim() ? { cwd: form.cwd.trim() } : {}),
    backend: form.backend,
    devices: list(form.devices).map(Number),
    selector: form.selector,
    caps: blankToNull(form.caps),
    ...(form.adapter.trim() && form.adapter.trim() !== 'auto' ? { adapter: form.adapter.trim() } : {}),
    file: blankToNull(form.file),
    pattern: blankToNull(form.pattern),
    units: blankToNull(form.units),
    margin: form.marginPct / 100,
    max_profile_share: form.maxSharePct / 100,
    job_seconds: form.jobSeconds,
    overhead_w: form.overheadW,
    sim_speedup: form.simSpeedup,
    ...(sim.length ? { sim_devices: sim } : {}),
    hold_w: holdW !== null && Number.isFinite(holdW) ? holdW : null,
    seed: form.seed,
    rate_timeout_s: form.rateTimeoutS,
    hang_timeout_s: form.hangTimeoutS,
  };
  const parsed = TuneStart.safeParse(input);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const key = issue.path[0] as keyof typeof FIELD_OF;
      const field = FIELD_OF[key] ?? 'line';
      const message = key === 'devices' && issue.code === 'invalid_type' ? 'give device indexes like 0 or 0,1' : issue.message;
      if (!problems.some((p) => p.field === field)) problems.push({ field, message });
    }
  }
  return { input: problems.length ? null : input, argv: split.argv, problems };
}
