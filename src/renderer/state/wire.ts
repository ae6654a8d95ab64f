import { onEvent } from '../api/client';
import { live, ptyBuffer } from './live';
import { useSweep } from './sweep';
import { useHistory } from './history';
import { toast } from './toasts';
import { notifySweepEnded } from './notify';
import { useTune } from './tune';

let wired = false;

/** Routes engine events into the stores, once, at start-up, so no page has to be open to catch them. */
export function wireEvents(): void {
  if (wired) return;
  wired = true;
  onEvent('sweep.started', (p) => {
    live.reset(p.sweep_id);
    ptyBuffer.clear();
    useSweep.getState().onStarted(p);
    void useHistory.getState().load();
  });
  onEvent('sweep.progress', (p) => {
    useSweep.getState().onProgress(p);
    live.addPhase(p);
    if (p.run_id !== null && p.workload !== null) ptyBuffer.label(p.run_id, `r${p.repetition ?? '?'}: ${p.workload} at ${p.cap_w ?? '?'} W`);
  });
  onEvent('samples', (p) => live.addSamples(p));
  onEvent('throughput', (p) => live.addThroughput(p));
  onEvent('pty.data', (p) => ptyBuffer.push(p));
  onEvent('tune.status', (p) => {
    useTune.getState().onStatus(p);
    ptyBuffer.label(0, `the job of tuning session #${p.sweep_id}`);
  });
  onEvent('run.finished', (p) => useSweep.getState().onRunFinished(p));
  onEvent('sweep.finished', (p) => {
    useSweep.getState().onFinished(p);
    void useHistory.getState().load();
    const restored = p.restored.filter((r) => r.ok).length;
    const failed = p.restored.length - restored;
    const text = `Sweep #${p.sweep_id} ${p.status}${p.error ? `: ${p.error}` : ''}. ${restored} limit(s) restored${failed ? `, ${failed} FAILED` : ''}.`;
    toast(p.status === 'done' ? 'ok' : failed ? 'error' : 'warn', text);
    notifySweepEnded(p, useSweep.getState().sweep?.name ?? null);
  });
}
