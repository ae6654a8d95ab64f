// Starting a tuning session: the GPUs chosen and checked, the caps checked against their limits, the leases taken
// (every device or none) and the session begun. Every bad input is refused here, before anything is written.
import type { Db } from '../store/db';
import type { CapOwnership } from '../sweep/cap-guard';
import type { LabBackend } from '../gpu/backend';
import { LabError } from '../../../shared/errors';
import { Plan } from '../../../shared/plan';
import type { BackendChoice, DeviceInfo } from '../../../shared/device';
import type { Selector } from '../../../shared/analysis';
import type { EventArgs } from '../../../shared/api';
import { capsOutside, coarseGrid } from '../../../core/tune/grid';
import { TUNE_DEFAULTS, TuneSession, type TuneOptions } from './session';

export interface TuneRequest {
  argv: string[];
  backend: BackendChoice;
  /** Device indexes capped together (one cap for the job's GPUs). */
  devices: number[];
  sim: { speedup: number; presets?: string[] };
  selector: Selector;
  caps: number[] | null;
  adapter: string;
  file: string | null;
  pattern: string | null;
  units: string | null;
  margin: number;
  max_profile_share: number;
  expected_s: number;
  seed: number;
  overhead_w: number;
  rate_timeout_s: number;
  hang_timeout_s: number;
  hold_w: number | null;
  cwd?: string;
}

export interface TuneContext {
  db: Db;
  host: string;
  env: NodeJS.ProcessEnv;
  openLab: (plan: Plan) => Promise<LabBackend>;
  takeCaps: (lab: LabBackend, devices: DeviceInfo[]) => Promise<CapOwnership>;
  /** The engine's events: the session streams the sweep events and `tune.status` through them. */
  emit?: (...e: EventArgs) => void;
}

export interface StartedTune {
  session: TuneSession;
  lab: LabBackend;
  devices: DeviceInfo[];
  notices: string[];
}

/** The job's environment: the caller's, plus where a simulated job finds its GPUs and its clock. */
function jobEnv(env: NodeJS.ProcessEnv, lab: LabBackend): NodeJS.ProcessEnv {
  if (!lab.sim) return { ...env };
  return { ...env, CAPLAB_SIM_STATE_DIR: lab.sim.stateDir, CAPLAB_SIM_CLOCK: lab.sim.clock.toString() };
}

export async function startTune(ctx: TuneContext, req: TuneRequest, out: { onOutput: (d: string) => void; onNote: (l: string) => void }): Promise<StartedTune> {
  if (req.argv.length === 0) throw new LabError('invalid', 'give the job after --: caplab tune [options] -- CMD ARG...');
  const name = `tune: ${req.argv.join(' ')}`.slice(0, 200);
  const planOf = (caps: number[]) =>
    Plan.parse({
      name,
      backend: req.backend,
      devices: req.devices,
      workloads: [{ id: 'command', params: { argv: req.argv, adapter: req.adapter, ...(req.file ? { file: req.file } : {}), ...(req.pattern ? { pattern: req.pattern } : {}) } }],
      caps,
      // The plan's seed is the simulated GPUs' noise (their identity); --seed only orders the visits, so the same
      // job on the same GPU can be compared across visit orders.
      overhead_w: req.overhead_w,
      sim: { speedup: req.sim.speedup, ...(req.sim.presets ? { devices: req.sim.presets } : {}) },
    });
  const lab = await ctx.openLab(planOf(req.caps ?? [1]));
  let caps: CapOwnership | null = null;
  try {
    const all = await lab.backend.listDevices();
    const devices = req.devices.map((i) => {
      const d = all.find((x) => x.index === i);
      if (!d) throw new LabError('invalid', `--devices: no device ${i} (have ${all.map((x) => x.index).join(', ') || 'none'})`);
      if (d.min_limit_w == null || d.max_limit_w == null) throw new LabError('invalid', `--devices: ${d.name} (#${i}) reports no power-limit range, so its cap cannot be tuned`);
      return d;
    });
    const first = devices[0]!;
    const models = new Set(devices.map((d) => d.name));
    if (models.size > 1) throw new LabError('invalid', `--devices: one cap is tuned for all the job's GPUs, so they must be of one model; got ${[...models].join(', ')}`);
    const limits = { min_w: first.min_limit_w!, max_w: first.max_limit_w!, granularity_w: 1 };
    const defaultW = first.default_limit_w ?? first.max_limit_w!;
    const grid = req.caps ?? coarseGrid(limits, defaultW);
    const outside = capsOutside(req.hold_w !== null ? [...grid, req.hold_w] : grid, limits);
    if (outside.length) throw new LabError('invalid', `--caps/--hold: ${outside.join(', ')} W outside ${first.name}'s limits ${limits.min_w}-${limits.max_w} W`);
    // The saving is stated against the default limit, so it is always one of the caps profiled.
    const profiled = grid.includes(defaultW) ? grid : [...grid, defaultW].sort((a, b) => a - b);
    caps = await ctx.takeCaps(lab, devices);
    const opts: TuneOptions = {
      argv: req.argv,
      selector: req.selector,
      caps: profiled,
      adapter: req.adapter,
      file: req.file,
      pattern: req.pattern,
      units: req.units,
      margin: req.margin,
      alpha: TUNE_DEFAULTS.alpha,
      max_profile_share: req.max_profile_share,
      expected_s: req.expected_s,
      seed: req.seed,
      overhead_w: req.overhead_w,
      visit: TUNE_DEFAULTS.visit,
      phase: TUNE_DEFAULTS.phase,
      rate_timeout_s: req.rate_timeout_s,
      hang_timeout_s: req.hang_timeout_s,
      text_visit_s: TUNE_DEFAULTS.text_visit_s,
      sample_interval_ms: 100,
      hold_w: req.hold_w,
      plan: planOf(profiled),
    };
    const session = new TuneSession(
      { db: ctx.db, host: ctx.host, backend: lab.backend, timeScale: lab.timeScale, devices, caps, jobEnv: jobEnv(ctx.env, lab), cwd: req.cwd, onOutput: out.onOutput, onNote: out.onNote, emit: ctx.emit },
      opts,
    );
    const notices = caps.restoredStale.map((r) => `a limit left by an earlier, killed session was restored first: ${r.device_name} to ${r.before_w} W (was ${r.was_w} W)`);
    void session.done.finally(() => void lab.backend.close());
    return { session, lab, devices, notices };
  } catch (e) {
    await caps?.release();
    await lab.backend.close();
    throw e;
  }
}
