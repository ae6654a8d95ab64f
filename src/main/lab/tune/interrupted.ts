// A tuning session whose CapLab was killed (kill -9, a crash) has no outcome: its stored status is the last stage it
// recorded. Read back, it says so, with when the process was found gone and what the cap journal restored, computed
// when read so that a restore done after the next start (or still owed) is told as it stands.
import type { Db } from '../store/db';
import { getSweep, getTuneStatus } from '../store/sweeps';
import { journalOfSweep } from '../store/journal';
import type { TuneInterruption, TuneRestore, TuneStatus } from '../../../shared/tune';

const iso = (s: number) => new Date(s * 1000).toISOString().replace(/\.\d+Z$/, 'Z');

/** The session's stored status; an interrupted session's as stage 'interrupted' with what happened in words. */
export function storedTuneStatus(db: Db, sweepId: number): TuneStatus | null {
  const stored = getTuneStatus(db, sweepId);
  if (!stored || stored.stage === 'ended' || stored.stage === 'interrupted') return stored;
  const sweep = getSweep(db, sweepId);
  if (sweep?.status !== 'interrupted') return stored;
  const interrupted: TuneInterruption = { found_at: sweep.finished_at, last_stage: stored.stage, last_cap_w: stored.cap_w, restored: journalOfSweep(db, sweepId) };
  return { ...stored, stage: 'interrupted', held_w: null, note: interruptionText(interrupted), interrupted };
}

function doing(i: TuneInterruption): string {
  if (i.last_stage === 'warmup') return "waiting for the job's rate to steady";
  return i.last_stage === 'visit' ? `profiling ${i.last_cap_w} W` : `holding ${i.last_cap_w} W`;
}

function restoreText(r: TuneRestore): string {
  if (r.error) return `${r.device_name}: not restored (${r.error}); its limit before the session was ${r.before_w} W: run caplab restore-caps`;
  if (r.restored_at === null) return `${r.device_name}: not restored yet; its limit before the session was ${r.before_w} W: run caplab restore-caps`;
  if (r.restored_w === null) return `${r.device_name}: its journal entry was closed at ${iso(r.restored_at)} by a restore that left no value here (limit before the session ${r.before_w} W)`;
  return `${r.device_name}: restored from the journal to ${r.restored_w} W at ${iso(r.restored_at)}${r.restored_w === r.before_w ? ' (its limit before the session)' : ` (the journal held ${r.before_w} W)`}`;
}

/** "CapLab was killed while this session was profiling 300 W (found …); GPU 0: restored from the journal to 690 W at …". */
export function interruptionText(i: TuneInterruption): string {
  const found = i.found_at !== null ? ` (found gone at ${iso(i.found_at)}, when CapLab next opened this database)` : '';
  const restores = i.restored.length ? i.restored.map(restoreText).join('; ') : 'no limit had been journalled (none is changed before that), so none was restored';
  return `interrupted: CapLab was killed while this session was ${doing(i)}${found}. ${restores}.`;
}
