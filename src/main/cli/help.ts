import type { CliCommand } from './command';

/** What a flag does, its default and an example, as `caplab NAME --help` prints it. */
export interface FlagDoc {
  text: string;
  default?: string;
  example?: string;
  /** The value's placeholder (FILE, W, ID); flags without one take no value. */
  value?: string;
}

/** Flags several commands share, described once. */
const COMMON: Record<string, FlagDoc> = {
  db: { value: 'FILE', text: 'The lab database (SQLite) to read and write.', default: '$CAPLAB_DB, else caplab.db in the data folder ($CAPLAB_DATA_DIR or the platform\'s per-user data folder)', example: '--db ./lab.db' },
  backend: {
    value: 'NAME',
    text: 'Which GPUs to drive: auto, sim, nvml, nvidia-smi or amd-smi. auto tries NVML, then nvidia-smi, then amd-smi, then simulated GPUs, and says which it chose and why.',
    default: 'auto (sweep: the plan\'s backend)',
    example: '--backend sim',
  },
  json: { text: 'Print exactly one JSON document on stdout (messages go to stderr); its fields are a stable scripting interface.', default: 'off (a table for people)' },
};

/** Per command: its own flags. */
const FLAGS: Record<string, Record<string, FlagDoc>> = {
  sweep: { wait: { text: 'When another sweep holds one of the plan\'s devices, wait until it is free instead of refusing (says whom it waits for).', default: 'off (refuse, naming the owner)' } },
  runs: { sweep: { value: 'ID', text: 'Only this sweep (with all its runs).', default: 'every sweep', example: '--sweep 3' } },
  analyze: {
    overhead: { value: 'W', text: 'Node overhead added to GPU power for the efficiency (units per joule of GPU + overhead energy).', default: 'the plan\'s overhead_w', example: '--overhead 150' },
    selector: { value: 'NAME', text: 'How the best cap is chosen (marked * in the table): max-efficiency (most units/J), min-energy-slowdown (least J/unit within --slowdown), min-edp (least energy-delay product), weighted (--weight between time and energy).', default: 'max-efficiency', example: '--selector min-energy-slowdown' },
    slowdown: { value: 'FRACTION', text: 'Slowdown budget of min-energy-slowdown, as a fraction of the fastest cap\'s throughput (0.1 = at most 10 % slower).', default: '0.1', example: '--slowdown 0.05' },
    weight: { value: 'W', text: 'For --selector weighted: weight of time (0..1); energy gets 1 - W.', default: '0.5', example: '--weight 0.3' },
    dataset: { value: 'ID', text: 'Analyse an imported dataset\'s segments instead of a sweep (no SWEEP_ID then).', example: '--dataset 2' },
    'include-unenforced': { text: 'Also count caps the device did not enforce (its limit stayed above the cap); they are excluded by default.', default: 'off' },
    'include-flagged': { text: 'Also let runs flagged no-steady-state or warmup-in-window decide the best cap, Pareto front and sensitivity; they are left out by default (listed per cap in excluded_runs).', default: 'off' },
    margin: { value: 'FRACTION', text: 'Practical margin of the equivalence judgement: a cap within this fraction of the best cap\'s value counts as equally good.', default: '0.02 (2 %)', example: '--margin 0.05' },
  },
  compare: {
    workload: { value: 'ID', text: 'The workload to compare when the sweeps ran several.', default: 'the one workload they share', example: '--workload vit_l_16' },
    overhead: { value: 'W', text: 'Node overhead for the efficiency of every sweep.', default: 'each sweep\'s own overhead_w', example: '--overhead 100' },
  },
  energy: {
    from: { value: 'T', text: 'Start of the range: ISO-8601 time or epoch seconds (required).', example: '--from 2026-05-01T10:00:00Z' },
    to: { value: 'T', text: 'End of the range, as --from (required).', example: '--to 1767225700' },
    device: { value: 'N', text: 'Only this device index.', default: 'every device with samples', example: '--device 0' },
    dataset: { value: 'ID', text: 'Samples of an imported dataset instead of the sweeps\' own (--from/--to then default to the whole dataset).', default: 'the sweeps\' samples', example: '--dataset 2' },
    segment: { value: 'N', text: 'With --dataset: only this segment\'s time range (see caplab datasets ID).', default: 'the whole dataset', example: '--segment 4' },
  },
  import: {
    format: { value: 'NAME', text: 'The log format (see the list above): auto detects it from the content.', default: 'auto', example: '--format dcgm-dmon' },
    tz: { value: 'ZONE', text: 'Time zone of timestamps that carry none (an IANA name such as Europe/Berlin, or UTC).', default: 'this machine\'s zone', example: '--tz UTC' },
    name: { value: 'N', text: 'Name of the new dataset.', default: 'the name of the (first) file or folder imported', example: "--name 'H200 node 3, May'" },
    fields: { value: 'LIST', text: 'For headerless nvidia-smi CSV (--format=csv,noheader): the --query-gpu field list it was written with.', example: '--fields timestamp,index,power.draw' },
    interval: { value: 'S', text: 'Sampling interval of logs without timestamps (dcgmi dmon --delay), seconds.', default: '1', example: '--interval 0.1' },
  },
  datasets: { delete: { text: 'Delete the dataset ID (its samples and segments); recorded sweeps are not touched.', default: 'off' } },
  throughput: {
    adapter: { value: 'NAME', text: 'How to read the file: auto (detect it) or one of the adapters listed above.', default: 'auto (regex when --pattern is given)', example: '--adapter mllog' },
    pattern: { value: 'REGEX', text: 'For the regex adapter: named groups units+seconds, units+t, or rate (Python-style (?P<name>...) works too).', example: "--pattern 'done (?<units>\\d+) in (?<seconds>[\\d.]+)s'" },
    skip: { value: 'N', text: 'Leave out the first N records as warm-up.', default: 'each adapter\'s own warm-up rule', example: '--skip 10' },
    units: { value: 'NAME', text: 'Name of the work unit.', default: 'the adapter\'s own (images, tokens, samples, ...)', example: '--units tokens' },
    gpus: { value: 'N', text: 'GPUs the run used, to report throughput per GPU.', default: 'what the file says, else none (totals only)', example: '--gpus 8' },
  },
  serve: {
    port: { value: 'N', text: 'TCP port; 0 picks a free one.', default: '0', example: '--port 8080' },
    host: { value: 'H', text: 'Address to bind. Anything but 127.0.0.1 exposes the lab to the network (a warning is printed; the token is still required).', default: '127.0.0.1', example: '--host 127.0.0.1' },
    demo: { text: 'A fresh database gets the demo sweep on a simulated H100, run live (implies --backend sim unless given).', default: 'off' },
    'api-only': { text: 'Serve only the API (no user interface files).', default: 'off' },
  },
};

const EXAMPLES: Record<string, string[]> = {
  devices: ['caplab devices', 'caplab devices --backend sim --json'],
  sweep: ['caplab sweep resources/plans/demo-sim.yaml', 'caplab sweep my-plan.yaml --backend nvml --db ./lab.db', 'caplab sweep my-plan.yaml --json > sweep.json'],
  runs: ['caplab runs', 'caplab runs --sweep 3 --json'],
  'restore-caps': ['caplab restore-caps', 'caplab restore-caps --json'],
  analyze: ['caplab analyze 1', 'caplab analyze 1 --overhead 200 --selector min-energy-slowdown --slowdown 0.05', 'caplab analyze 1 --json', 'caplab analyze --dataset 2'],
  energy: ['caplab energy --from 2026-05-01T10:00:00Z --to 2026-05-01T11:00:00Z', 'caplab energy --from 1767225600 --to 1767225700 --device 0 --json', 'caplab energy --dataset 2 --segment 4'],
  compare: ['caplab compare 1 2', 'caplab compare 1 2 3 --workload vit_l_16 --overhead 100 --json'],
  serve: ['caplab serve', 'caplab serve --demo --port 8080', 'caplab serve --db ./lab.db --backend nvml'],
  throughput: ['caplab throughput train.log', "caplab throughput bench.out --pattern 'done (?<units>\\d+) in (?<seconds>[\\d.]+)s' --units tokens --gpus 8 --json"],
  workloads: ['caplab workloads', 'caplab workloads --json'],
  import: ['caplab import gpu-power.csv', 'caplab import logs/ --tz UTC --name "H200 node 3" --json'],
  datasets: ['caplab datasets', 'caplab datasets 2 --json', 'caplab datasets 2 --delete'],
};

/** The doc of one flag of a command (its own, else the shared one); undefined when it has none. */
export function flagDoc(command: string, flag: string): FlagDoc | undefined {
  return FLAGS[command]?.[flag] ?? COMMON[flag];
}

export function examplesOf(command: string): string[] {
  return EXAMPLES[command] ?? [];
}

/** `caplab NAME --help`: usage, summary, every flag with what it does, its default and an example, then examples. */
export function commandHelp(cmd: CliCommand): string {
  const lines = [`Usage: caplab ${cmd.usage}`, '', cmd.summary, '', 'Options:'];
  for (const [name, spec] of Object.entries(cmd.options)) {
    const doc = flagDoc(cmd.name, name);
    const value = spec.type === 'string' ? ` ${doc?.value ?? 'VALUE'}` : '';
    lines.push(`  ${spec.short ? `-${spec.short}, ` : ''}--${name}${value}`);
    lines.push(`      ${doc?.text ?? '(not described)'}`);
    if (doc?.default) lines.push(`      Default: ${doc.default}.`);
    if (doc?.example) lines.push(`      Example: ${doc.example}`);
  }
  lines.push('  -h, --help', '      Show this help.');
  const examples = examplesOf(cmd.name);
  if (examples.length) lines.push('', 'Examples:', ...examples.map((e) => `  ${e}`));
  return lines.join('\n');
}
