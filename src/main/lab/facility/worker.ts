// Facility worker thread: runs tasks posted by the pool (load searches and replicas) and posts their results.
import { parentPort } from 'node:worker_threads';
import { runTask, type FacilityTask } from './tasks';

parentPort!.on('message', (task: FacilityTask) => {
  try {
    parentPort!.postMessage({ ok: true, result: runTask(task) });
  } catch (e) {
    parentPort!.postMessage({ ok: false, error: (e as Error).message, name: (e as Error).name, field: (e as { field?: string }).field });
  }
});
