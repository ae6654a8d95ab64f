import { readFileSync, statSync } from 'node:fs';
import { basename } from 'node:path';
import { AdapterError, adapters, getAdapter, readThroughput } from '../../../core/adapters';
import { CliError, defineCommand, numberOpt, printJson, stringOpt, type CliArgs, type CliIO } from '../command';
import { followJob } from '../../lab/standalone/throughput';

/** `--follow -- CMD`: the job's rate read live from its output, observe only (no lease, no limit). */
async function follow(args: CliArgs, io: CliIO, adapter: string): Promise<number> {
  const json = args.values.json === true;
  const every = numberOpt(args, 'every') ?? 10;
  if (!(every > 0)) throw new CliError('--every must be a number of seconds above 0');
  const aborter = new AbortController();
  const onSignal = () => aborter.abort();
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    const r = await followJob(
      {
        argv: args.positionals,
        adapter,
        pattern: stringOpt(args, 'pattern') ?? null,
        units: stringOpt(args, 'units') ?? null,
        env: io.env,
        every_s: every,
        onOutput: (d) => (json ? io.stderr : io.stdout).write(d),
        onReading: (x) => io.stderr.write(`caplab throughput: live ${x.t.toFixed(0)} s: ${x.rate === null ? 'no rate yet' : `${fmt(x.rate)} units/s`} (${x.adapter ?? 'no adapter yet'})\n`),
      },
      aborter.signal,
    );
    if (json) printJson(io, { follow: true, adapter: r.adapter, units: r.units, rate: r.rate, adapter_rate: r.reading?.rate ?? null, count: r.reading?.count ?? null, seconds: r.reading?.seconds ?? null, window: r.reading?.window ?? null, exit_code: r.exit.exitCode, lines: r.lines, readings: r.readings, error: r.error });
    else io.stderr.write(`caplab throughput: followed ${r.lines} lines; adapter ${r.adapter ?? '–'}; rate ${fmt(r.rate)} ${r.units ?? 'units'}/s${r.error ? ` — ${r.error}` : ''}\n`);
    if (r.rate === null) return 2;
    return r.exit.exitCode === 0 ? 0 : 1;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

const MAX_BYTES = 512 * 1024 * 1024;

function fmt(x: number | null, digits = 2): string {
  if (x === null || !Number.isFinite(x)) return '–';
  return Math.abs(x) >= 1e6 || Number.isInteger(x) ? String(x) : x.toFixed(digits);
}

export const throughputCommand = defineCommand({
  name: 'throughput',
  summary: `Read the throughput of a finished log or result file (adapters: auto, ${adapters.map((a) => a.name).join(', ')})`,
  usage: 'throughput LOGFILE [--adapter auto|NAME] [--pattern REGEX] [--skip N] [--units NAME] [--gpus N] [--json] | throughput --follow [--every S] [--adapter auto|NAME] [--json] -- CMD ARG...',
  options: {
    adapter: { type: 'string' },
    pattern: { type: 'string' },
    skip: { type: 'string' },
    units: { type: 'string' },
    gpus: { type: 'string' },
    json: { type: 'boolean' },
    follow: { type: 'boolean' },
    every: { type: 'string' },
  },
  flags: {
    adapter: { value: 'NAME', text: 'How to read the file: auto (detect it) or one of the adapters listed above.', default: 'auto (regex when --pattern is given)', example: '--adapter mllog' },
    pattern: { value: 'REGEX', text: 'For the regex adapter: named groups units+seconds, units+t, or rate (Python-style (?P<name>...) works too).', example: "--pattern 'done (?<units>\\d+) in (?<seconds>[\\d.]+)s'" },
    skip: { value: 'N', text: 'Leave out the first N records as warm-up.', default: 'each adapter\'s own warm-up rule', example: '--skip 10' },
    units: { value: 'NAME', text: 'Name of the work unit.', default: 'the adapter\'s own (images, tokens, samples, ...)', example: '--units tokens' },
    gpus: { value: 'N', text: 'GPUs the run used, to report throughput per GPU.', default: 'what the file says, else none (totals only)', example: '--gpus 8' },
    follow: { text: 'Run the job given after -- in a terminal and read its rate live from its output, as caplab tune does (observe only: no limit is set).', default: 'off (read LOGFILE)' },
    every: { value: 'S', text: 'With --follow: seconds between live readings (on stderr).', default: '10', example: '--every 5' },
  },
  examples: ['caplab throughput train.log', "caplab throughput bench.out --pattern 'done (?<units>\\d+) in (?<seconds>[\\d.]+)s' --units tokens --gpus 8 --json"],
  async run(args, io) {
    if (args.values.follow) {
      if (args.positionals.length === 0) throw new CliError('give the job after --: caplab throughput --follow -- CMD ARG...');
      const a = stringOpt(args, 'adapter') ?? (stringOpt(args, 'pattern') ? 'regex' : 'auto');
      if (a !== 'auto' && !getAdapter(a)) throw new CliError(`--adapter must be auto or one of ${adapters.map((x) => x.name).join(', ')}; got "${a}"`);
      return follow(args, io, a);
    }
    const [file, ...extra] = args.positionals;
    if (!file) throw new CliError('give the log file: caplab throughput LOGFILE [--adapter NAME]');
    if (extra.length) throw new CliError(`one log file at a time; got also ${extra.join(' ')}`);
    const adapter = stringOpt(args, 'adapter') ?? (stringOpt(args, 'pattern') ? 'regex' : 'auto');
    if (adapter !== 'auto' && !getAdapter(adapter)) throw new CliError(`--adapter must be auto or one of ${adapters.map((a) => a.name).join(', ')}; got "${adapter}"`);
    const skip = numberOpt(args, 'skip');
    if (skip !== undefined && (!Number.isInteger(skip) || skip < 0)) throw new CliError('--skip must be a whole number >= 0');
    const gpus = numberOpt(args, 'gpus');
    if (gpus !== undefined && (!Number.isInteger(gpus) || gpus < 1)) throw new CliError('--gpus must be a whole number >= 1');
    let text: string;
    try {
      const st = statSync(file);
      if (!st.isFile()) throw new Error('not a file');
      if (st.size > MAX_BYTES) throw new Error(`larger than ${MAX_BYTES / 1024 / 1024} MiB`);
      text = readFileSync(file, 'utf8');
    } catch (e) {
      throw new CliError(`cannot read ${file}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}`);
    }
    let r;
    try {
      r = readThroughput(text, { file, adapter, pattern: stringOpt(args, 'pattern'), skip, units: stringOpt(args, 'units') });
    } catch (e) {
      if (e instanceof AdapterError) throw new CliError(e.message);
      throw e;
    }
    const perGpuGpus = gpus ?? (typeof r.details.gpus === 'number' ? r.details.gpus : typeof r.details.world_size === 'number' ? r.details.world_size : typeof r.details.num_gpus === 'number' ? r.details.num_gpus : null);
    const ratePerGpu = perGpuGpus ? r.rate / perGpuGpus : null;
    if (args.values.json) {
      printJson(io, {
        file: basename(file),
        adapter: r.adapter,
        units: r.units,
        count: r.count,
        seconds: r.seconds,
        rate: r.rate,
        gpus: perGpuGpus,
        rate_per_gpu: ratePerGpu,
        window: r.window,
        details: r.details,
      });
      return 0;
    }
    const a = getAdapter(r.adapter)!;
    const lines = [
      `file     ${file}`,
      `adapter  ${r.adapter}${adapter === 'auto' ? ' (detected)' : ''} — ${a.title}`,
      `units    ${r.units}`,
      `count    ${r.count === null ? '– (the tool reports a rate only)' : fmt(r.count)}`,
      `window   ${r.seconds === null ? '–' : `${fmt(r.seconds, 3)} s`}${r.window ? ` (${new Date(r.window.start * 1000).toISOString()} .. ${new Date(r.window.end * 1000).toISOString()})` : ''}`,
      `rate     ${fmt(r.rate)} ${r.units}/s${ratePerGpu !== null ? ` (${fmt(ratePerGpu)} per GPU, ${perGpuGpus} GPUs)` : ''}`,
    ];
    if (typeof r.details.method === 'string') lines.push(`method   ${r.details.method}`);
    const warnings = Array.isArray(r.details.warnings) ? (r.details.warnings as string[]) : [];
    for (const w of warnings) lines.push(`warning  ${w}`);
    io.stdout.write(lines.join('\n') + '\n');
    return 0;
  },
});
