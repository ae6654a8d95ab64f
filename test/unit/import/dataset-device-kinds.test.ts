// Imported devices keep their kind in the store: a node-level series (NLR aggregated: GPU + CPU summed over the
// nodes) and a facility series are not GPUs; databases written before (kind 'gpu') are corrected by migration v9.
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDb } from '../../../src/main/lab/store/db';
import { migrations } from '../../../src/main/lab/store/migrations';
import { tempDir } from '../../helpers/tmp';

const tmp = tempDir('caplab-kinds-');
afterAll(() => tmp.cleanup());

describe('dataset device kinds', () => {
  it('migration v9 turns the node-level and facility series stored as gpu into node and facility, nothing else', () => {
    const file = join(tmp.dir, 'lab.db');
    let db = openDb(file);
    const ins = db.prepare("INSERT INTO devices (device_key, host, backend, idx, kind, name, vendor, simulated, sensors, updated_at) VALUES (?, ?, ?, 0, 'gpu', 'x', 'imported', 0, '{}', 0)");
    ins.run('dataset:1/nlr-parquet:0/node:llama', 'dataset:1', 'nlr-parquet');
    ins.run('dataset:2/facility-csv:0/facility', 'dataset:2', 'facility-csv');
    ins.run('dataset:3/nvidia-smi:0/gpu:0', 'dataset:3', 'nvidia-smi');
    ins.run('lab/nlr-parquet:0/x', 'lab', 'nlr-parquet');
    db.close();
    // The v8 -> v9 step itself (migrations[8]), run as openDb runs it: later steps add columns and are tested apart.
    db = openDb(file);
    try {
      const step = migrations[8]!;
      expect(typeof step).toBe('string');
      db.exec(step as string);
      expect(db.prepare('SELECT device_key, kind FROM devices ORDER BY id').all()).toEqual([
        { device_key: 'dataset:1/nlr-parquet:0/node:llama', kind: 'node' },
        { device_key: 'dataset:2/facility-csv:0/facility', kind: 'facility' },
        { device_key: 'dataset:3/nvidia-smi:0/gpu:0', kind: 'gpu' },
        { device_key: 'lab/nlr-parquet:0/x', kind: 'gpu' },
      ]);
    } finally {
      db.close();
    }
  });
});
