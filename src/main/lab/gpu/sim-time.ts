// How far simulated time has got on each simulated device, kept in the state directory
// (sim-time/<index>.json), so a new sweep's clock starts after every earlier one: a sped-up sweep's simulated
// timestamps run ahead of real time, and a later sweep starting at real time would land inside them.
import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { SimClock } from './sim-clock';

const SimTimeRecord = z.object({
  /** The clock that sampled the device (`ORIGIN:SPEEDUP[:START]`). */
  clock: z.string(),
  /** Last simulated time sampled, written when the backend closed; null while it runs (or if it was killed). */
  until: z.number().nullable(),
});

function timeDir(dir: string): string {
  return join(dir, 'sim-time');
}

export function recordSimTime(dir: string, index: number, clock: SimClock, until: number | null): void {
  mkdirSync(timeDir(dir), { recursive: true });
  const path = join(timeDir(dir), `${index}.json`);
  const tmp = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  writeFileSync(tmp, JSON.stringify({ clock: clock.toString(), until }) + '\n');
  renameSync(tmp, path);
}

/**
 * The latest simulated time any device of the state directory may already hold at real second `realNow`: a
 * closed clock's last sample, or an open (or killed) clock's reading now. -Infinity when there is none.
 */
export function simTimeFloor(dir: string, realNow = Date.now() / 1000): number {
  let names: string[];
  try {
    names = readdirSync(timeDir(dir)).filter((n) => n.endsWith('.json'));
  } catch {
    return -Infinity;
  }
  let floor = -Infinity;
  for (const name of names) {
    const path = join(timeDir(dir), name);
    let parsed;
    try {
      parsed = SimTimeRecord.safeParse(JSON.parse(readFileSync(path, 'utf8')));
    } catch (e) {
      throw new Error(`${path} is not a simulated time record (${(e as Error).message}); delete it to reset simulated time`, { cause: e });
    }
    if (!parsed.success) throw new Error(`${path} is not a simulated time record: ${parsed.error.issues[0]?.message}`);
    const { clock, until } = parsed.data;
    floor = Math.max(floor, until ?? SimClock.parse(clock).atReal(realNow));
  }
  return floor;
}
