// `caplab throughput --follow -- CMD`: a job run in a pty and its rate read live from its output, as `caplab tune`
// reads it, without a lease or any limit change (observe only). What tune sees can so be checked against
// `caplab throughput` on the job's finished log.
import { PtyRun, type PtyExit } from '../runner/pty-run';
import { killTagged, newRunTag, RUN_TAG_ENV } from '../runner/tagged-processes';
import { readThroughput, type ThroughputResult } from '../../../core/adapters';
import { ProgressFollower } from '../../../core/tune/follow';

export interface FollowOptions {
  argv: string[];
  adapter: string;
  pattern: string | null;
  units: string | null;
  env: NodeJS.ProcessEnv;
  /** Seconds between live readings. */
  every_s: number;
  onOutput: (d: string) => void;
  onReading: (r: LiveReading) => void;
}

export interface LiveReading {
  /** Seconds since the job started. */
  t: number;
  adapter: string | null;
  rate: number | null;
  /** The protocol's steps so far, counted live (null for other adapters). */
  steps: number | null;
}

export interface FollowResult {
  exit: PtyExit;
  adapter: string | null;
  /** The rate over the whole output as followed live: for the protocol from its step events, else the adapter's reading of the lines received. */
  rate: number | null;
  units: string | null;
  /** The adapter's reading of the lines as received (the same reading `caplab throughput` makes of a log). */
  reading: ThroughputResult | null;
  readings: LiveReading[];
  lines: number;
  error: string | null;
}

export async function followJob(o: FollowOptions, stop: AbortSignal): Promise<FollowResult> {
  const follower = new ProgressFollower(o.adapter);
  const started = Date.now() / 1000;
  let lines = 0;
  const tag = newRunTag();
  const job = new PtyRun({
    argv: o.argv,
    env: { ...o.env, [RUN_TAG_ENV]: tag },
    onData: o.onOutput,
    onLine: (l) => {
      lines++;
      follower.push(l, Date.now() / 1000);
    },
  });
  const readings: LiveReading[] = [];
  const read = (): LiveReading => {
    const adapter = follower.resolvedAdapter();
    let rate: number | null = null;
    if (adapter === 'protocol') rate = follower.protocolRate()?.rate ?? null;
    else if (adapter) {
      try {
        rate = readThroughput(follower.text(-Infinity, Infinity), { adapter, pattern: o.pattern ?? undefined, units: o.units ?? undefined, file: 'job output' }).rate;
      } catch {
        rate = null;
      }
    }
    return { t: Date.now() / 1000 - started, adapter, rate, steps: adapter === 'protocol' ? follower.steps.length : null };
  };
  const timer = setInterval(() => {
    const r = read();
    readings.push(r);
    o.onReading(r);
  }, o.every_s * 1000);
  const onStop = () => void job.kill();
  stop.addEventListener('abort', onStop, { once: true });
  const exit = await job.exited;
  clearInterval(timer);
  stop.removeEventListener('abort', onStop);
  await killTagged(tag);
  const final = read();
  let reading: ThroughputResult | null = null;
  let error: string | null = null;
  if (final.adapter) {
    try {
      reading = readThroughput(follower.text(-Infinity, Infinity), { adapter: final.adapter, pattern: o.pattern ?? undefined, units: o.units ?? undefined, file: 'job output' });
    } catch (e) {
      error = (e as Error).message;
    }
  } else error = 'no adapter recognises the job output';
  return { exit, adapter: final.adapter, rate: final.rate, units: follower.units ?? reading?.units ?? o.units, reading, readings, lines, error };
}
