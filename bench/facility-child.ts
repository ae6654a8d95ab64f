// Timed facility runs in a fresh process, so its peak memory (max RSS) is its own; reports the median of REPEATS and the first run (cold JIT): `year LOAD` simulates the
// NLR colocation baseline for its horizon with power and statistics, `grid LOAD` the same with its grid config, `search TARGET` runs the load search.
// The scenario comes checked, as JSON (as the pool posts a task to a worker thread): the first timed run builds this
// process's first model, as a worker's first task does, with no setup code made hot by a validation beforehand.
import { readFileSync } from 'node:fs';
import { buildModel, type ScenarioInput } from '../src/core/facility/model';
import { findLoad, runReplica } from '../src/core/facility/run';

const [scenarioFile, what, arg, horizon, repeats] = process.argv.slice(2);
const sc = JSON.parse(readFileSync(scenarioFile!, 'utf8')) as ScenarioInput;
sc.config = { ...sc.config, replicas: 1, horizon_days: Number(horizon) };
const walls: number[] = [];
const cpus: number[] = [];
let out: Record<string, number> = {};
for (let i = 0; i < Number(repeats ?? 1); i++) {
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  const b = buildModel(sc);
  if (what === 'year' || what === 'grid') {
    const r = runReplica(sc, b, Number(arg), sc.config.seed);
    out = { utilization: r.utilization, mean_w: r.it.mean, peak_w: r.it.peak, p99_w: r.it.p99, jobs_started: r.jobsStarted };
    // `grid`: the scenario has a grid config (12 events and a battery); the response's outcome beside the power.
    if (r.grid) {
      const sum = (o: Record<string, number>) => Object.values(o).reduce((x, y) => x + y, 0);
      out = {
        ...out,
        grid_mean_w: r.grid.grid_mean_w,
        grid_peak_w: r.grid.grid_peak_w,
        events_met_share: r.grid.events.reduce((x, e) => x + e.met_share, 0) / r.grid.events.length,
        work_lost_node_h: sum(r.grid.work_lost_node_h),
        deferred_node_h: sum(r.grid.deferred_node_h),
        battery_cycles: r.grid.battery?.cycles ?? 0,
      };
    }
  } else {
    const f = findLoad(b, Number(arg), sc.config.seed);
    out = { load: f.load, utilization: f.utilization, iterations: f.iterations };
  }
  walls.push((performance.now() - t0) / 1000);
  const c = process.cpuUsage(c0);
  cpus.push((c.user + c.system) / 1e6);
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log(JSON.stringify({ ...out, wall_s: median(walls), cpu_s: median(cpus), cpu_first_s: cpus[0], wall_first_s: walls[0], max_rss_mb: process.resourceUsage().maxRSS / 1024 }));
