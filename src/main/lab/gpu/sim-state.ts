// Files shared between the simulated backend and simulated workload processes, in one state directory:
//   sim-gpus.json          the devices and their current limits: survives processes, as a driver's limits do
//   sim-activity/<pid>.json one per running simulated workload: which devices it loads, since when
// Both are written atomically (temp file + rename), so a reader never sees half a file.
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { findPreset, PRESET_IDS } from '../../../core/sim/presets';

export const SIM_DEVICES_ENV = 'CAPLAB_SIM_DEVICES';
const DEFAULT_PRESETS = ['h100-sxm'];

export const SimGpuState = z.object({
  version: z.literal(1),
  devices: z.array(z.object({ index: z.number().int().nonnegative(), preset: z.string(), limit_w: z.number().positive() })),
});
export type SimGpuState = z.infer<typeof SimGpuState>;

export const SimActivity = z.object({
  pid: z.number().int().positive(),
  devices: z.array(z.number().int().nonnegative()).min(1),
  workload: z.string(),
  params: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])),
  /** Simulated time the workload started, on the workload's own clock. */
  started_t: z.number(),
  /** The workload's clock (`ORIGIN:SPEEDUP`), so a reader on another clock can still place it in time. */
  clock: z.string(),
});
export type SimActivity = z.infer<typeof SimActivity>;

export function statePath(dir: string): string {
  return join(dir, 'sim-gpus.json');
}

function activityDir(dir: string): string {
  return join(dir, 'sim-activity');
}

function writeAtomic(path: string, text: string): void {
  // pid + random suffix: several processes may write the same file at once; each rename is atomic.
  const tmp = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  writeFileSync(tmp, text);
  renameSync(tmp, path);
}

/** The state file, or null when there is none yet. A corrupt file is an error naming it. */
export function readState(dir: string): SimGpuState | null {
  let text: string;
  try {
    text = readFileSync(statePath(dir), 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new Error(`${statePath(dir)} is not valid JSON; delete it to reset the simulated GPUs`);
  }
  const parsed = SimGpuState.safeParse(json);
  if (!parsed.success) throw new Error(`${statePath(dir)} is not a simulated GPU state file: ${parsed.error.issues[0]?.message}`);
  return parsed.data;
}

export function writeState(dir: string, state: SimGpuState): void {
  mkdirSync(dir, { recursive: true });
  writeAtomic(statePath(dir), JSON.stringify(state, null, 2) + '\n');
}

function presetsFromEnv(env: NodeJS.ProcessEnv): string[] | null {
  const list = (env[SIM_DEVICES_ENV] ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  return list.length > 0 ? list : null;
}

/**
 * The simulated devices: the existing state file when it matches, else a new one. Presets come from the
 * argument, else the existing file, else CAPLAB_SIM_DEVICES, else one H100. A device whose preset is unchanged
 * keeps its limit (so a limit left behind by a killed process stays observable); a new or changed one starts at
 * its default limit.
 */
export function loadOrInitState(dir: string, presets: string[] | undefined, env: NodeJS.ProcessEnv): SimGpuState {
  const { state, changed } = wantedState(dir, presets, env);
  if (changed) writeState(dir, state);
  return state;
}

/**
 * The devices loadOrInitState would settle on, without writing anything (a plan check looks at the devices a plan
 * would run on; it must not change the host's). `changed`: the state file does not hold them yet.
 */
export function wantedState(dir: string, presets: string[] | undefined, env: NodeJS.ProcessEnv): { state: SimGpuState; changed: boolean } {
  const existing = readState(dir);
  const wanted = presets ?? existing?.devices.map((d) => d.preset) ?? presetsFromEnv(env) ?? DEFAULT_PRESETS;
  if (wanted.length === 0) throw new Error('no simulated devices requested');
  const devices = wanted.map((id, index) => {
    const preset = findPreset(id);
    if (!preset) throw new Error(`unknown simulated GPU preset "${id}"; known: ${PRESET_IDS.join(', ')}`);
    const old = existing?.devices.find((d) => d.index === index && d.preset === id);
    return { index, preset: id, limit_w: old?.limit_w ?? preset.limits.default_w };
  });
  const state: SimGpuState = { version: 1, devices };
  return { state, changed: JSON.stringify(state) !== JSON.stringify(existing) };
}

/** Registers a running workload; returns the file to remove when it ends. */
export function writeActivity(dir: string, activity: SimActivity): string {
  mkdirSync(activityDir(dir), { recursive: true });
  const path = join(activityDir(dir), `${activity.pid}.json`);
  writeAtomic(path, JSON.stringify(activity) + '\n');
  return path;
}

export function removeActivity(path: string): void {
  rmSync(path, { force: true });
}

export function isPidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: the process exists but belongs to someone else.
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Activity files of live workloads. Files of dead processes (a workload killed with SIGKILL cannot remove its
 * own) and unreadable files are skipped.
 */
export function readLiveActivities(dir: string): SimActivity[] {
  let names: string[];
  try {
    names = readdirSync(activityDir(dir)).filter((n) => n.endsWith('.json'));
  } catch {
    return [];
  }
  const live: SimActivity[] = [];
  for (const name of names) {
    try {
      const parsed = SimActivity.safeParse(JSON.parse(readFileSync(join(activityDir(dir), name), 'utf8')));
      if (parsed.success && isPidAlive(parsed.data.pid)) live.push(parsed.data);
    } catch {
      // Removed between readdir and read: the workload just ended.
    }
  }
  return live;
}
