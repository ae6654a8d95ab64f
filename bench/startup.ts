// CLI start-up (issue #26): `caplab devices --backend sim --json` through the launcher (bin/caplab.mjs: a current
// bundle found by its staleness check, bin/cli-bundle.mjs) against the same bundle imported directly (the plain
// bundled figure: no check) and against the TypeScript source compiled by tsx at every call (CAPLAB_CLI_SOURCE=1,
// the launcher before this change), alternated in fresh processes in the same run. Judged on child CPU seconds
// (user + system), which a loaded machine moves less than wall time; the median of CAPLAB_BENCH_STARTS (default 7)
// starts each. Goal: the launcher within 10 % of the plain bundle.
// Second row: the simulated workload's start (`caplab sim-workload --help`, a sweep starts one per run and the test
// suite hundreds) through the launcher against the bundle as it was built before 2026-12-07 (npm packages loaded
// from node_modules, one file), built here from the same source in the same run.
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createRequire } from 'node:module';
import type { BenchResult } from './harness';

const STARTS = Number(process.env.CAPLAB_BENCH_STARTS ?? 7);
const ARGS = ['devices', '--backend', 'sim', '--json'];

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

/** One start whose figures are not kept: it warms the file cache and creates the database. */
function warmUp(argv: string[], env: NodeJS.ProcessEnv): void {
  const r = spawnSync(process.execPath, argv, { env: { ...process.env, ...env }, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`startup bench: ${argv.join(' ')} exited ${r.status}: ${r.stderr}`);
}

/** Child CPU time is read by running each start under a tiny wrapper that reports process.cpuUsage at exit. */
function timedStart(dir: string, target: string, env: NodeJS.ProcessEnv, args: readonly string[] = ARGS) {
  const probe = join(dir, 'cpu-probe.mjs');
  const t0 = performance.now();
  const r = spawnSync(process.execPath, ['--import', pathToFileURL(probe).href, target, ...args], { env: { ...process.env, ...env }, encoding: 'utf8' });
  const wall_s = (performance.now() - t0) / 1000;
  if (r.status !== 0) throw new Error(`startup bench: ${target} exited ${r.status}: ${r.stderr}`);
  if (args === ARGS) JSON.parse(r.stdout);
  const m = /caplab-bench-cpu (\S+)/.exec(r.stderr);
  if (!m) throw new Error('startup bench: the CPU probe printed nothing');
  return { cpu_s: Number(m[1]), wall_s };
}

const SIM_ARGS = ['sim-workload', '--help'];

/** The CLI bundle as bin/cli-bundle.mjs built it before packages were bundled and commands split: the baseline. */
function buildOneFileBundle(): { entry: string; out: string } {
  const esbuild = createRequire(join(process.cwd(), 'package.json'))('esbuild') as typeof import('esbuild');
  // In the checkout (out/, as the launcher's bundle): its packages resolve from node_modules, its .js are ES modules.
  const out = join(process.cwd(), 'out', `bench-one-file-${process.pid}`);
  esbuild.buildSync({
    absWorkingDir: process.cwd(),
    entryPoints: { caplab: 'src/main/cli/main.ts' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outdir: out,
    packages: 'external',
    logLevel: 'silent',
    banner: { js: "import { createRequire as __caplabRequire } from 'node:module'; const require = __caplabRequire(import.meta.url);" },
  });
  const entry = join(out, 'run.mjs');
  writeFileSync(entry, "const { main } = await import('./caplab.js');\nprocess.exitCode = await main(process.argv.slice(2));\n");
  return { entry, out };
}

export async function run(dir: string): Promise<BenchResult[]> {
  const home = join(dir, 'startup');
  mkdirSync(home, { recursive: true });
  writeFileSync(join(home, 'cpu-probe.mjs'), "process.on('exit', () => { const c = process.cpuUsage(); process.stderr.write(`caplab-bench-cpu ${(c.user + c.system) / 1e6}\\n`); });\n");
  const launcher = join(process.cwd(), 'bin', 'caplab.mjs');
  // The plain bundle: the file the launcher would run, imported without the staleness check.
  const { cliBundle } = (await import(pathToFileURL(join(process.cwd(), 'bin', 'cli-bundle.mjs')).href)) as { cliBundle: (root: string) => string | null };
  const bundle = cliBundle(process.cwd());
  if (!bundle) throw new Error('startup bench: no CLI bundle could be built');
  const plain = join(home, 'plain.mjs');
  writeFileSync(plain, `const { main } = await import(${JSON.stringify(pathToFileURL(bundle).href)});\nprocess.exitCode = await main(process.argv.slice(2));\n`);
  const env = { CAPLAB_DATA_DIR: join(home, 'data'), CAPLAB_DB: join(home, 'data', 'caplab.db') };
  warmUp([launcher, ...ARGS], env);
  const runs = { launcher: [] as number[], plain: [] as number[], tsx: [] as number[] };
  const walls = { launcher: [] as number[], plain: [] as number[], tsx: [] as number[] };
  for (let i = 0; i < STARTS; i++) {
    for (const [k, target, extra] of [['launcher', launcher, {}], ['plain', plain, {}], ['tsx', launcher, { CAPLAB_CLI_SOURCE: '1' }]] as const) {
      const r = timedStart(home, target, { ...env, ...extra });
      runs[k].push(r.cpu_s);
      walls[k].push(r.wall_s);
    }
  }
  const { entry: oneFile, out: oneFileDir } = buildOneFileBundle();
  const sim = { launcher: [] as number[], one_file: [] as number[] };
  const devicesOneFile: number[] = [];
  try {
    warmUp([oneFile, ...SIM_ARGS], env);
    for (let i = 0; i < STARTS; i++) {
      sim.launcher.push(timedStart(home, launcher, env, SIM_ARGS).cpu_s);
      sim.one_file.push(timedStart(home, oneFile, env, SIM_ARGS).cpu_s);
      devicesOneFile.push(timedStart(home, oneFile, env).cpu_s);
    }
  } finally {
    rmSync(oneFileDir, { recursive: true, force: true });
  }
  const launcherCpu = median(runs.launcher);
  const plainCpu = median(runs.plain);
  const tsxCpu = median(runs.tsx);
  const simLauncher = median(sim.launcher);
  const simOneFile = median(sim.one_file);
  const simRow: BenchResult = {
    name: 'CLI start-up: caplab sim-workload --help (once per simulated run)',
    ratio_label: 'launcher / one-file bundle of before (CPU s, median)',
    ratio: simLauncher / simOneFile,
    target: 0.6,
    better: 'lower',
    details: { starts: STARTS, launcher_cpu_s: simLauncher, one_file_cpu_s: simOneFile },
  };
  return [{
    name: 'CLI start-up: caplab devices --backend sim --json',
    ratio_label: 'launcher / plain bundle (CPU s, median)',
    ratio: launcherCpu / plainCpu,
    target: 1.1,
    better: 'lower',
    goal: { label: 'launcher / tsx (CPU s)', value: launcherCpu / tsxCpu, limit: 0.5, better: 'lower' },
    details: {
      starts: STARTS,
      launcher_cpu_s: launcherCpu,
      plain_cpu_s: plainCpu,
      tsx_cpu_s: tsxCpu,
      // The same command through the bundle as it was built before (packages external, one file).
      one_file_cpu_s: median(devicesOneFile),
      launcher_wall_s: median(walls.launcher),
      plain_wall_s: median(walls.plain),
      tsx_wall_s: median(walls.tsx),
    },
  }, simRow];
}
