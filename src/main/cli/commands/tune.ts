import { LeaseHeldError, TUNE_DEFAULTS, tuneReportText, type TuneReport } from '../../lab';
import { CliError, defineCommand, numberOpt, printJson, stringOpt, type CliArgs } from '../command';
import { backendOpt, backendOption, dbOption, describeRestores, jsonOption, openEngine } from '../open-engine';
import { adapterNames, getAdapter } from '../../../core/adapters';
import { CapGridError, parseCaps } from '../../../core/tune/grid';
import { Selector } from '../../../shared/analysis';
import { selectorIds, selectorList } from '../../../shared/selectors';

function percentOpt(args: CliArgs, name: string, fallback: number, max = 100): number {
  const v = numberOpt(args, name);
  if (v === undefined) return fallback;
  if (!(v > 0 && v <= max)) throw new CliError(`--${name} must be a percentage above 0 and at most ${max}, got ${v}`);
  return v / 100;
}

function positiveOpt(args: CliArgs, name: string, fallback: number): number {
  const v = numberOpt(args, name);
  if (v === undefined) return fallback;
  if (!(v > 0)) throw new CliError(`--${name} must be a number above 0, got ${v}`);
  return v;
}

function devicesOpt(text: string | undefined): number[] {
  if (text === undefined) return [0];
  const list = text.split(',').map((s) => Number(s.trim()));
  if (list.length === 0 || list.some((i) => !Number.isInteger(i) || i < 0) || new Set(list).size !== list.length) {
    throw new CliError(`--devices wants distinct device indexes like 0,1, got "${text}"`);
  }
  return list;
}

export const tuneCommand = defineCommand({
  name: 'tune',
  summary: 'Run your own job and find and hold its best power cap while it runs (profiles caps live, restores the limits at the end)',
  usage:
    'tune [--devices LIST] [--selector S] [--caps FROM:TO:STEP|LIST] [--adapter auto|NAME] [--file F] [--pattern RE] [--units U] [--margin PCT] ' +
    '[--max-profile-share PCT] [--job-seconds S] [--hold W] [--seed N] [--overhead W] [--rate-timeout S] [--hang-timeout S] [--backend NAME] ' +
    '[--sim-speedup N] [--sim-devices LIST] [--db FILE] [--wait] [--json] -- CMD ARG...',
  options: {
    ...backendOption,
    ...dbOption,
    ...jsonOption,
    devices: { type: 'string' },
    selector: { type: 'string' },
    caps: { type: 'string' },
    adapter: { type: 'string' },
    file: { type: 'string' },
    pattern: { type: 'string' },
    units: { type: 'string' },
    margin: { type: 'string' },
    'max-profile-share': { type: 'string' },
    'job-seconds': { type: 'string' },
    overhead: { type: 'string' },
    seed: { type: 'string' },
    'sim-speedup': { type: 'string' },
    'sim-devices': { type: 'string' },
    'rate-timeout': { type: 'string' },
    'hang-timeout': { type: 'string' },
    hold: { type: 'string' },
    wait: { type: 'boolean' },
  },
  flags: {
    devices: { value: 'LIST', text: 'The GPUs the job runs on, capped together (one cap for all of them; one model).', default: '0', example: '--devices 0,1,2,3' },
    selector: { value: 'NAME', text: `Which cap is best: ${selectorList.map((s) => s.id).join(', ')} (as caplab analyze).`, default: 'max-efficiency', example: '--selector min-energy-slowdown' },
    caps: { value: 'FROM:TO:STEP|LIST', text: 'The coarse caps to profile (watts); refinement adds caps near the best; the default limit is always profiled too.', default: 'five caps from 40 % of the default limit to the default limit', example: '--caps 300:700:100' },
    adapter: { value: 'NAME', text: 'How the job\'s progress is read: auto, or an adapter of caplab throughput.', default: 'auto (regex when --pattern is given)', example: '--adapter litgpt' },
    file: { value: 'F', text: 'Read progress from this file the job writes (e.g. LitGPT metrics.csv) instead of its output.', default: 'the job\'s output', example: '--file out/metrics.csv' },
    pattern: { value: 'RE', text: 'For the regex adapter: named groups as in caplab throughput --pattern.', example: "--pattern 'step (?<units>\\d+) tokens in (?<seconds>[\\d.]+)s'" },
    units: { value: 'U', text: 'Name of the work unit.', default: 'what the job or adapter says', example: '--units tokens' },
    margin: { value: 'PCT', text: 'Practical margin of the equivalence rule: profiling stops once no cap can beat the best by more than this.', default: '2', example: '--margin 3' },
    'max-profile-share': { value: 'PCT', text: 'Profiling stops (holding the best cap so far, and saying so) when it would take more than this share of --job-seconds.', default: '10', example: '--max-profile-share 5' },
    'job-seconds': { value: 'S', text: 'How long the job is expected to run: the profiling budget is a share of it.', default: '3600', example: '--job-seconds 86400' },
    overhead: { value: 'W', text: 'Node overhead added to GPU power for the efficiency, as a plan\'s overhead_w.', default: '100', example: '--overhead 150' },
    seed: { value: 'N', text: 'Seed of the random visit order.', default: '1', example: '--seed 7' },
    'sim-speedup': { value: 'N', text: 'With --backend sim: simulated time runs N times faster (1 to 1000).', default: '1', example: '--sim-speedup 100' },
    'sim-devices': { value: 'LIST', text: 'With --backend sim: the simulated GPU presets, one per device.', default: 'the simulated GPUs\' state, else h100-sxm', example: '--sim-devices h200' },
    'rate-timeout': { value: 'S', text: 'Refuse the job (ending it, no limit changed) when its output gives no steady rate within S seconds.', default: '600', example: '--rate-timeout 120' },
    'hang-timeout': { value: 'S', text: 'A job silent for S seconds is hung: it is ended and the limits restored.', default: '300', example: '--hang-timeout 60' },
    hold: { value: 'W', text: 'Profile nothing: hold this cap from the job\'s steady state to its end (a cap found before, or the default limit as a baseline), with the same journal, restore and report.', default: 'off (profile)', example: '--hold 350' },
    wait: { text: 'When another sweep or session holds one of the devices, wait until it is free instead of refusing.', default: 'off (refuse, naming the owner)' },
  },
  examples: ['caplab tune -- python3 train.py --epochs 3', 'caplab tune --devices 0,1,2,3 --selector min-energy-slowdown --job-seconds 86400 -- torchrun --nproc-per-node 4 train.py', 'caplab tune --adapter litgpt --file out/metrics.csv --json -- litgpt pretrain --config cfg.yaml'],
  async run(args, io) {
    const argv = args.positionals;
    if (argv.length === 0) throw new CliError('give the job after --: caplab tune [options] -- CMD ARG...');
    const selector = stringOpt(args, 'selector') ?? 'max-efficiency';
    if (!Selector.safeParse(selector).success) throw new CliError(`--selector must be one of ${selectorIds.join(', ')}; got "${selector}"`);
    const adapter = stringOpt(args, 'adapter') ?? (stringOpt(args, 'pattern') ? 'regex' : 'auto');
    if (adapter !== 'auto' && !getAdapter(adapter)) throw new CliError(`--adapter must be auto or one of ${adapterNames.join(', ')}; got "${adapter}"`);
    let caps: number[] | null = null;
    const capsText = stringOpt(args, 'caps');
    if (capsText !== undefined) {
      try {
        caps = parseCaps(capsText);
      } catch (e) {
        if (e instanceof CapGridError) throw new CliError(e.message);
        throw e;
      }
    }
    const seed = numberOpt(args, 'seed') ?? 1;
    if (!Number.isInteger(seed)) throw new CliError('--seed must be a whole number');
    const speedup = positiveOpt(args, 'sim-speedup', 1);
    if (speedup > 1000) throw new CliError('--sim-speedup must be at most 1000');
    const overhead = numberOpt(args, 'overhead') ?? 100;
    if (!(overhead >= 0)) throw new CliError('--overhead must be a number of watts >= 0');
    const simDevices = stringOpt(args, 'sim-devices');
    const engine = await openEngine(args, io, { restoreOnOpen: true });
    const json = args.values.json === true;
    const note = (l: string) => io.stderr.write(`caplab tune: ${l}\n`);
    let started;
    try {
      try {
        started = await engine.beginTune(
          {
            argv,
            backend: backendOpt(args) ?? 'auto',
            devices: devicesOpt(stringOpt(args, 'devices')),
            sim: { speedup, ...(simDevices ? { presets: simDevices.split(',').map((s) => s.trim()) } : {}) },
            selector: selector as Selector,
            caps,
            adapter,
            file: stringOpt(args, 'file') ?? null,
            pattern: stringOpt(args, 'pattern') ?? null,
            units: stringOpt(args, 'units') ?? null,
            margin: percentOpt(args, 'margin', TUNE_DEFAULTS.margin),
            max_profile_share: percentOpt(args, 'max-profile-share', TUNE_DEFAULTS.max_profile_share),
            expected_s: positiveOpt(args, 'job-seconds', TUNE_DEFAULTS.expected_s),
            seed,
            overhead_w: overhead,
            rate_timeout_s: positiveOpt(args, 'rate-timeout', TUNE_DEFAULTS.rate_timeout_s),
            hang_timeout_s: positiveOpt(args, 'hang-timeout', TUNE_DEFAULTS.hang_timeout_s),
            hold_w: numberOpt(args, 'hold') ?? null,
            cwd: process.cwd(),
          },
          // The job's output is the user's: passed through to stdout, except under --json, where stdout is the report's.
          { onOutput: (d) => (json ? io.stderr : io.stdout).write(d), onNote: note },
          { wait: args.values.wait === true, onWait: (why) => note(`waiting: ${why}`) },
        );
      } catch (e) {
        if (e instanceof LeaseHeldError) throw new CliError(`${e.message}; nothing was changed (wait for it with --wait)`, 3);
        throw e;
      }
      for (const n of started.notices) note(n);
      note(`tuning ${started.devices.map((d) => `${d.name} (#${d.index})`).join(', ')} for ${argv.join(' ')}; session ${started.session.sweepId}`);
      let signalled: NodeJS.Signals | null = null;
      const onSignal = (sig: NodeJS.Signals) => {
        if (signalled) return;
        signalled = sig;
        io.stderr.write(`\ncaplab tune: ${sig}: restoring power limits and ending the job…\n`);
        started!.session.cancel(`stopped by ${sig}`);
      };
      process.on('SIGINT', onSignal);
      process.on('SIGTERM', onSignal);
      let report: TuneReport;
      try {
        report = await started.session.done;
      } finally {
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
      }
      for (const line of describeRestores(report.restored)) note(line);
      if (json) printJson(io, report);
      else io.stderr.write(tuneReportText(report));
      if (signalled) return signalled === 'SIGINT' ? 130 : 143;
      if (report.status === 'refused') return 2;
      if (report.status === 'done') return 0;
      // The job's own failure gives its exit code; a job CapLab ended (hung, for one) exits 143 by CapLab's hand.
      return !report.job_ended_by_caplab && report.job_exit_code && report.job_exit_code > 0 ? report.job_exit_code : 1;
    } finally {
      await engine.close();
    }
  },
});
