// What runs in an engine: its sweeps and tuning sessions, and the pty of a limit change's sudo. The sweep and tune
// services add to it; each looks at the other kind here (one at a time, the console's cancel and input reach
// either), never at the other service.
import type { IPty } from 'node-pty';
import type { EventArgs } from '../../shared/api';
import type { SweepStatus } from '../../shared/records';
import type { PtyHandler } from './gpu/lab-backend';
import { LabError } from '../../shared/errors';

/** A running sweep as the engine's other calls see it (sweep/orchestrator.ts's SweepOrchestrator). */
export interface RunningSweep {
  readonly sweepId: number;
  readonly activeRunId: number | null;
  readonly done: Promise<SweepStatus>;
  cancel(): void;
  write(data: string): boolean;
}

/** A running tuning session as the engine's other calls see it (tune/session.ts's TuneSession). */
export interface RunningTune {
  readonly done: Promise<unknown>;
  cancel(why: string): void;
  write(data: string): boolean;
}

export class Running {
  /** Sweeps running in this engine, by sweep id. */
  readonly sweeps = new Map<number, RunningSweep>();
  /** Tuning sessions running in this engine (the CLI's one, or the app's), by their sweep id. */
  readonly tunes = new Map<number, RunningTune>();
  /** The pty of a running `sudo … -pl` (limit change as a normal user), fed to the terminal panel. */
  capPty: IPty | null = null;

  constructor(
    private readonly emit: (...e: EventArgs) => void,
    private readonly onPty: PtyHandler | undefined,
  ) {}

  /** Shows a limit change's sudo prompt in the run's terminal (pty.data) and takes the password from writePty. */
  readonly handlePty: PtyHandler = (p) => {
    this.capPty = p;
    const sweep = [...this.sweeps.values()][0];
    p.onData((data) => this.emit('pty.data', { sweep_id: sweep?.sweepId ?? 0, run_id: sweep?.activeRunId ?? 0, data }));
    p.onExit(() => {
      if (this.capPty === p) this.capPty = null;
    });
    this.onPty?.(p);
  };

  /** One sweep or tuning session at a time per engine (the lease refuses a second on the same GPUs anyway, less clearly). */
  refuseWhileBusy(): void {
    const sweep = [...this.sweeps.keys()][0];
    if (sweep !== undefined) throw new LabError('conflict', `sweep ${sweep} is still running; cancel it or wait for it to end`);
    const tune = [...this.tunes.keys()][0];
    if (tune !== undefined) throw new LabError('conflict', `tuning session ${tune} is still running; cancel it or wait for it to end`);
  }

  /** Ends a tuning session and waits until its limits are restored and its job has ended; false when none runs under that id. */
  async cancelTune(sweepId: number): Promise<boolean> {
    const session = this.tunes.get(sweepId);
    if (!session) return false;
    session.cancel('cancelled from the app');
    await session.done;
    return true;
  }

  /** Cancels every running sweep and session and waits until their limits are restored (SIGINT/SIGTERM, app quit). */
  async cancelAll(): Promise<SweepStatus[]> {
    const sweeps = [...this.sweeps.values()];
    const tunes = [...this.tunes.values()];
    for (const s of sweeps) s.cancel();
    for (const t of tunes) t.cancel('the engine is closing');
    const [statuses] = await Promise.all([Promise.all(sweeps.map((s) => s.done)), Promise.all(tunes.map((t) => t.done))]);
    return statuses;
  }
}
