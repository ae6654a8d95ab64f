import type { CliCommand } from './command';
import type { commandLoaders } from './commands';
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
function backendHelp(): string {
  const choices = BackendChoice.options;
  const label = (id: string) => backendList.find((b) => b.id === id)?.label ?? id;
  return (
    `Which GPUs to drive: ${choices.slice(0, -1).join(', ')} or ${choices.at(-1)}. ` +
    `auto tries ${autoOrder().join(', then ')}, and says which it chose and why. ` +
    `${choices.filter((c) => c !== 'auto').map((c) => `${c}: ${label(c)}`).join('; ')}.`
  );
}

/** Flags several commands share, described once. */
const COMMON: Record<string, FlagDoc> = {
  db: { value: 'FILE', text: 'The lab database (SQLite) to read and write.', default: '$CAPLAB_DB, else caplab.db in the data folder ($CAPLAB_DATA_DIR or the platform\'s per-user data folder)', example: '--db ./lab.db' },
  backend: {
    value: 'NAME',
    text: backendHelp(),
    default: 'auto (sweep: the plan\'s backend)',
    example: '--backend sim',
  },
  json: { text: 'Print exactly one JSON document on stdout (messages go to stderr); its fields are a stable scripting interface.', default: 'off (a table for people)' },
};

/** The analysis flags of analyze, report and export (src/main/cli/analysis-options.ts), described once. */
const ANALYSIS: Record<string, FlagDoc> = {
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
};

/** --limit and --cursor of the paged listings (runs, samples): a page, and the page after a printed cursor. */
function paging(limit: string, all: string, example: number): Record<string, FlagDoc> {
  return {
    limit: { value: 'N', text: `${limit} Without --json the next page's cursor goes to stderr.`, default: all, example: `--limit ${example}` },
    cursor: { value: 'C', text: 'The page after the one that printed this cursor (its next).', default: 'the first page', example: '--cursor eyJzIjoi...' },
  };
}

/** Per command: its own flags. */
/** A command's name: keys of the command registry, so a typo or a command removed is a type error here. */
type CommandName = keyof typeof commandLoaders;
/** Commands with flags of their own (the rest take only the common ones). */
const FLAGS: Partial<Record<CommandName, Record<string, FlagDoc>>> = {
  sweep: {
    wait: { text: 'When another sweep holds one of the plan\'s devices, wait until it is free instead of refusing (says whom it waits for).', default: 'off (refuse, naming the owner)' },
    check: { text: 'Only check the plan: print its problems, warnings (with what earlier runs in the database and the simulator know of each workload) and estimated duration, run nothing, write nothing. Exit 2 for problems, 0 otherwise; --json prints what the API\'s validatePlan returns.', default: 'off (run the sweep)' },
  },
  tune: {
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
  doctor: {
    backend: { value: 'NAME', text: `Every backend is probed anyway; this one is the backend whose devices the energy-counter and power-limit checks look at. ${backendHelp()}`, default: 'auto', example: '--backend nvml' },
    db: { value: 'FILE', text: 'The lab database whose file and folder are checked (writable, free space); it is not opened or created.', default: COMMON.db!.default, example: '--db ./lab.db' },
  },
  runs: {
    sweep: { value: 'ID', text: 'Only this sweep (with all its runs).', default: 'every sweep', example: '--sweep 3' },
    ...paging('With --sweep: one page of at most N runs (1 to 1000); JSON: {sweep_id, runs, next}.', 'every run at once', 100),
  },
  samples: {
    run: { value: 'ID', text: 'The samples of this run (every device, its start to its end).', example: '--run 12' },
    segment: { value: 'ID', text: 'The samples of this dataset segment (its devices, its window).', example: '--segment 4' },
    ...paging('One page of at most N samples (1 to 10000); JSON: {samples, next}.', 'every sample as a JSON line, fetched page by page', 2000),
  },
  analyze: {
    ...ANALYSIS,
    dataset: { value: 'ID', text: 'Analyse an imported dataset\'s segments instead of a sweep (no SWEEP_ID then).', example: '--dataset 2' },
  },
  compare: {
    workload: { value: 'ID', text: 'The workload to compare when the sweeps ran several.', default: 'the one workload they share', example: '--workload vit_l_16' },
    overhead: { value: 'W', text: 'Node overhead for the efficiency of every sweep.', default: 'each sweep\'s own overhead_w', example: '--overhead 100' },
    dataset: { value: 'ID', text: 'Also compare this imported dataset (its segments with a cap and work units, as analyze --dataset); repeatable; after the sweeps.', default: 'none', example: '--dataset 2' },
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
    follow: { text: 'Run the job given after -- in a terminal and read its rate live from its output, as caplab tune does (observe only: no limit is set).', default: 'off (read LOGFILE)' },
    every: { value: 'S', text: 'With --follow: seconds between live readings (on stderr).', default: '10', example: '--every 5' },
  },
  report: {
    ...ANALYSIS,
    dataset: { value: 'ID', text: 'Report on an imported dataset instead of a sweep (no SWEEP_ID then).', example: '--dataset 2' },
    compare: { value: 'ID,ID', text: 'Report comparing two or more sweeps (no SWEEP_ID then).', example: '--compare 3,7' },
    'all-since': { value: 'DATE', text: 'One report per sweep created since then (ISO-8601 time or epoch seconds), each caplab-report-sweep-ID.pdf in --out-dir.', example: '--all-since 2026-05-01' },
    'out-dir': { value: 'DIR', text: 'With --all-since: the folder the reports are written to.', default: 'the current folder', example: '--out-dir reports' },
    'html-only': { text: 'With --all-since: write HTML reports instead of PDF (no browser needed).', default: 'off (PDF)' },
    pdf: { value: 'FILE', text: 'Write the PDF here (printed by headless Chromium).', default: 'caplab-report-sweep-ID.pdf (dataset-ID, compare-ID-ID) unless --html is given', example: '--pdf sweep-3.pdf' },
    html: { value: 'FILE', text: 'Write the HTML report here (inline SVG charts; no browser needed); with --pdf, both are written.', default: 'none', example: '--html sweep-3.html' },
    author: { value: 'NAME', text: 'Author named on the report.', default: 'none', example: "--author 'A. Researcher'" },
    paper: { value: 'SIZE', text: 'Paper size of the PDF: a4 or letter.', default: 'a4', example: '--paper letter' },
    browser: { value: 'PATH', text: 'The Chromium or Chrome to print the PDF with.', default: '$CAPLAB_BROWSER, else a system Chromium/Chrome, else Playwright\'s', example: '--browser /usr/bin/chromium' },
    title: { value: 'T', text: 'Title of the report.', default: 'the sweep\'s name and label (a comparison: its sweeps)', example: "--title 'H100 power caps, May'" },
  },
  export: {
    ...ANALYSIS,
    run: { value: 'ID', text: 'export samples: the samples of this run.', example: '--run 12' },
    sweep: { value: 'ID', text: 'export samples: the samples of every run of this sweep.', example: '--sweep 3' },
    dataset: { value: 'ID', text: 'export samples: the samples of this imported dataset.', example: '--dataset 2' },
    device: { value: 'N', text: 'export samples: only this device index.', default: 'every device', example: '--device 0' },
    from: { value: 'T', text: 'export samples: start of the time range, ISO-8601 time or epoch seconds.', default: 'no lower bound', example: '--from 2026-05-01T10:00:00Z' },
    to: { value: 'T', text: 'export samples: end of the time range, as --from.', default: 'no upper bound', example: '--to 2026-05-01T11:00:00Z' },
    columns: { value: 'LIST', text: 'export samples: the columns to write, comma-separated.', default: 'every column', example: '--columns t,power_w,sm_clock_mhz' },
    time: { value: 'FORMAT', text: 'export samples: how times are written, epoch (seconds) or iso (ISO-8601).', default: 'epoch', example: '--time iso' },
    csv: { value: 'FILE', text: 'export samples / export runs / export tune: write CSV here (units in the header; export tune: in a unit column).', example: '--csv samples.csv' },
    parquet: { value: 'FILE', text: 'export samples: write Parquet here (units in the file metadata) instead of CSV.', example: '--parquet samples.parquet' },
    out: { value: 'FILE', text: 'export json: where to write the sweep\'s caplab.export/1 JSON bundle.', example: '--out sweep-3.json' },
    'out-dir': { value: 'DIR', text: 'export analysis: the folder for the analysis tables (sweep-ID-<table>.csv).', example: '--out-dir tables' },
  },
  facility: {
    csv: { value: 'OUT_DIR', text: 'Also write replica 1 of each level as OUT_DIR/<scenario>_<NN>u_power.csv (NLR facility-profile format); the folder is created.', default: 'none', example: '--csv out/facility' },
    'host-search': { value: 'TARGET:SHARE', text: 'Instead of the levels: the largest node count a site under the config\'s grid.limit_mw can host at utilisation TARGET with at most SHARE of the work lost to the limit (caps and deferral), with every try (work lost, hours at and over the limit, grid peak).', default: 'off', example: '--host-search 0.6:0.01' },
    scenario: { value: 'NAME', text: 'Run only this scenario (and the one it takes its load from, same_load_as).', default: 'every scenario', example: '--scenario capped' },
    replicas: { value: 'N', text: 'Seeded replicas per level (1 to 64), overriding the config.', default: 'the config\'s replicas', example: '--replicas 8' },
    threads: { value: 'N', text: 'Worker threads; 0 runs everything on this thread.', default: 'CPU cores - 1, at least 1', example: '--threads 4' },
    series: { text: 'With --json: include the plot series of each level (large).', default: 'off' },
    html: { value: 'FILE', text: 'Write the facility report as HTML here (inline SVG charts; no browser needed).', default: 'none', example: '--html site.html' },
    pdf: { value: 'FILE', text: 'Write the facility report as PDF here (printed by headless Chromium).', default: 'none', example: '--pdf site.pdf' },
    author: { value: 'NAME', text: 'With --html/--pdf: author named on the report.', default: 'none', example: "--author 'A. Planner'" },
    paper: { value: 'SIZE', text: 'With --pdf: paper size, a4 or letter.', default: 'a4', example: '--paper letter' },
    title: { value: 'T', text: 'With --html/--pdf: title of the report.', default: 'the config\'s name', example: "--title 'Site B, 2027'" },
    browser: { value: 'PATH', text: 'With --pdf: the Chromium or Chrome to print with.', default: '$CAPLAB_BROWSER, else a system Chromium/Chrome, else Playwright\'s', example: '--browser /usr/bin/chromium' },
  },
  exporter: {
    port: { value: 'N', text: 'TCP port of /metrics; 0 picks a free one.', default: '9400 (dcgm-exporter\'s)', example: '--port 9401' },
    interval: { value: 'MS', text: 'Sampling interval in milliseconds (50 to 600000).', default: '1000', example: '--interval 500' },
    host: { value: 'H', text: 'Address to bind; the endpoint is read-only and unauthenticated, as Prometheus exporters are.', default: '127.0.0.1', example: '--host 0.0.0.0' },
  },
  cluster: {
    nodes: { value: 'N', text: 'cluster submit: how many nodes the job array runs on at once (required).', example: '--nodes 4' },
    partition: { value: 'P', text: 'cluster submit: Slurm partition (sbatch --partition).', default: 'Slurm\'s default', example: '--partition gpu' },
    'gpus-per-node': { value: 'G', text: 'cluster submit: GPUs per node to request (sbatch --gpus-per-node).', default: 'none requested', example: '--gpus-per-node 8' },
    time: { value: 'T', text: 'cluster submit: time limit of each array task (sbatch --time).', default: 'Slurm\'s default', example: '--time 02:00:00' },
    account: { value: 'A', text: 'cluster submit: Slurm account to charge (sbatch --account).', default: 'Slurm\'s default', example: '--account proj42' },
    dir: { value: 'DIR', text: 'cluster submit: the job folder (script, plan, manifest, logs, results).', default: './caplab-jobs/<plan name>-<time>', example: '--dir /shared/caplab/job1' },
    'dry-run': { text: 'cluster submit: print the sbatch script and write or submit nothing.', default: 'off' },
    wait: { text: 'cluster cancel: wait until Slurm lists none of the job\'s tasks.', default: 'off' },
    task: { value: 'I', text: 'Internal (cluster task, run by the job script on each node): the array task index.', example: '--task 0' },
    out: { value: 'FILE', text: 'Internal (cluster task, run by the job script on each node): the task\'s results file.', example: '--out results/task-0.json' },
  },
  serve: {
    port: { value: 'N', text: 'TCP port; 0 picks a free one.', default: '0', example: '--port 8080' },
    host: { value: 'H', text: 'Address to bind. Anything but 127.0.0.1 exposes the lab to the network (a warning is printed; the token is still required).', default: '127.0.0.1', example: '--host 127.0.0.1' },
    demo: { text: 'A fresh database gets the demo sweep on a simulated H100, run live (implies --backend sim unless given).', default: 'off' },
    'api-only': { text: 'Serve only the API (no user interface files).', default: 'off' },
    metrics: { text: 'Add a Prometheus /metrics endpoint with the GPUs\' samples (token required, as a bearer header).', default: 'off' },
    interval: { value: 'MS', text: 'With --metrics: sampling interval in milliseconds (50 to 600000).', default: '1000', example: '--interval 500' },
  },
};

/** Every user-facing command's examples: a new command without them is a type error (sim-workload is internal). */
const EXAMPLES: Record<Exclude<CommandName, 'sim-workload'>, string[]> = {
  devices: ['caplab devices', 'caplab devices --backend sim --json'],
  doctor: ['caplab doctor', 'caplab doctor --json', 'caplab doctor --backend nvml --db /scratch/lab.db'],
  sweep: ['caplab sweep resources/plans/demo-sim.yaml', 'caplab sweep my-plan.yaml --backend nvml --db ./lab.db', 'caplab sweep my-plan.yaml --json > sweep.json'],
  tune: ['caplab tune -- python3 train.py --epochs 3', 'caplab tune --devices 0,1,2,3 --selector min-energy-slowdown --job-seconds 86400 -- torchrun --nproc-per-node 4 train.py', 'caplab tune --adapter litgpt --file out/metrics.csv --json -- litgpt pretrain --config cfg.yaml'],
  runs: ['caplab runs', 'caplab runs --sweep 3 --json', 'caplab runs --sweep 3 --limit 100 --json'],
  samples: ['caplab samples --run 12 > run-12.jsonl', 'caplab samples --segment 4 --limit 2000 --json'],
  'restore-caps': ['caplab restore-caps', 'caplab restore-caps --json'],
  analyze: ['caplab analyze 1', 'caplab analyze 1 --overhead 200 --selector min-energy-slowdown --slowdown 0.05', 'caplab analyze 1 --json', 'caplab analyze --dataset 2', 'caplab analyze 1 --price-per-mwh 85 --grid-g-per-kwh 380 --currency EUR', 'caplab analyze 1 --tariff site-tariff.yaml --json'],
  energy: ['caplab energy --from 2026-05-01T10:00:00Z --to 2026-05-01T11:00:00Z', 'caplab energy --from 1767225600 --to 1767225700 --device 0 --json', 'caplab energy --dataset 2 --segment 4'],
  compare: ['caplab compare 1 2', 'caplab compare 1 2 3 --workload vit_l_16 --overhead 100 --json', 'caplab compare 3 --dataset 2'],
  serve: ['caplab serve', 'caplab serve --demo --port 8080', 'caplab serve --db ./lab.db --backend nvml'],
  throughput: ['caplab throughput train.log', "caplab throughput bench.out --pattern 'done (?<units>\\d+) in (?<seconds>[\\d.]+)s' --units tokens --gpus 8 --json"],
  workloads: ['caplab workloads', 'caplab workloads --json'],
  import: ['caplab import gpu-power.csv', 'caplab import logs/ --tz UTC --name "H200 node 3" --json'],
  report: ['caplab report 3', "caplab report 3 --html sweep-3.html --author 'A. Researcher' --paper letter", 'caplab report --compare 3,7 --selector min-energy-slowdown --slowdown 0.05', 'caplab report --all-since 2026-05-01 --out-dir reports --html-only --json', 'caplab report 3 --price-per-mwh 85 --grid-g-per-kwh 380'],
  export: ['caplab export samples --run 12 --csv run-12.csv', 'caplab export samples --sweep 3 --time iso --parquet sweep-3.parquet', 'caplab export runs 3 --csv runs.csv', 'caplab export tune 4 --csv tune-4.csv', 'caplab export analysis 3 --out-dir tables --overhead 150', 'caplab export json 3 --out sweep-3.json', 'caplab export analysis 3 --out-dir tables --price-csv prices-2025.csv --grid-g-per-kwh 380'],
  facility: ['caplab facility resources/facility/nlr-colocation.yaml', 'caplab facility resources/facility/nlr-inference.yaml --replicas 4 --csv out/facility --json', 'caplab facility resources/facility/nlr-colocation.yaml --pdf nlr-colocation.pdf'],
  exporter: ['caplab exporter', 'caplab exporter --backend nvml --port 9401 --interval 500'],
  cluster: ['caplab cluster submit my-plan.yaml --nodes 4 --partition gpu --time 02:00:00 --dry-run', 'caplab cluster status 12345', 'caplab cluster collect 12345 --json', 'caplab cluster cancel 12345 --wait', 'caplab cluster nodes 7'],
  datasets: ['caplab datasets', 'caplab datasets 2 --json', 'caplab datasets 2 --delete'],
};

/** The doc of one flag of a command (its own, else the shared one); undefined when it has none. */
export function flagDoc(command: string, flag: string): FlagDoc | undefined {
  return FLAGS[command as CommandName]?.[flag] ?? COMMON[flag];
}

export function examplesOf(command: string): string[] {
  return EXAMPLES[command as keyof typeof EXAMPLES] ?? [];
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
