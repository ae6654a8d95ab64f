// Facility worker thread: runs tasks posted by the pool (load searches and replicas) and posts their results.
import { parentPort } from 'node:worker_threads';
import { runTask, type FacilityTask } from './tasks';

parentPort!.on('message', (msg: { id: number; task: FacilityTask }) => {
  try {
    parentPort!.postMessage({ id: msg.id, ok: true, result: runTask(msg.task) });
  } catch (e) {
    parentPort!.postMessage({ id: msg.id, ok: false, error: (e as Error).message, name: (e as Error).name, field: (e as { field?: string }).field });
  }
});
