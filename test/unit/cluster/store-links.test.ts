import { afterEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { openDb, type Db } from '../../../src/main/lab/store/db';
import { createSweep, getSweep, markInterruptedSweeps, updateRun } from '../../../src/main/lab/store/sweeps';
import { runningRun } from '../../../src/main/lab/cluster/exporter-source';
import { nodeOfRuns } from '../../../src/main/lab/store/cluster-jobs';
import { Plan } from '../../../src/shared/plan';
import { tempDir } from '../../helpers/tmp';

const plan = Plan.parse({ backend: 'sim', workloads: [{ id: 'vit_l_16' }], caps: [300] });
let tmp: ReturnType<typeof tempDir> | null = null;
let db: Db | null = null;

function fresh(): Db {
  tmp = tempDir('caplab-cluster-store-');
  db = openDb(join(tmp.dir, 'lab.db'));
  return db;
}

afterEach(() => {
  db?.close();
  tmp?.cleanup();
});

describe('sweeps merged from a Slurm job', () => {
  it('are not marked interrupted when the collecting process is gone (the job decides, at the next collect)', () => {
    const d = fresh();
    const { sweepId } = createSweep(d, { name: 'c', plan, host: 'slurm:42', backend: 'sim', simulated: true }, []);
    const local = createSweep(d, { name: 'l', plan, host: 'ws', backend: 'sim', simulated: true }, []).sweepId;
    expect(markInterruptedSweeps(d, () => false)).toEqual([local]);
    expect(getSweep(d, sweepId)!.status).toBe('running');
  });

  it('a database that never collected a cluster job has its (migrated) cluster tables, empty: no node links', () => {
    const d = fresh();
    expect(nodeOfRuns(d, 1).size).toBe(0);
    expect(d.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'cluster_%' ORDER BY name").pluck().all()).toEqual(['cluster_jobs', 'cluster_nodes', 'cluster_runs']);
    expect(d.prepare('SELECT COUNT(*) AS n FROM cluster_runs').get()).toEqual({ n: 0 });
  });
});

describe('the standalone exporter\'s view of a sweep in the database', () => {
  it('reports the running run of a live sweep, and nothing once its process is gone', () => {
    const d = fresh();
    const { runIds } = createSweep(d, { name: 's', plan, host: 'ws', backend: 'sim', simulated: true }, [{ workload: 'vit_l_16', cap_w: 300, repetition: 1, order: 0 }]);
    expect(runningRun(d)).toBeNull();
    updateRun(d, runIds[0]!, { status: 'running' });
    expect(runningRun(d)).toMatchObject({ run_id: runIds[0], workload: 'vit_l_16', cap_w: 300, phase: 'running' });
    d.prepare('UPDATE sweeps SET pid = ?').run(2 ** 22 + 12345);
    expect(runningRun(d)).toBeNull();
  });
});
