import type { Db } from './connection';
import { sampleBlocksDdl, SampleWriter, BLOCK_SAMPLES, streamFor } from './sample-blocks';
import { readingFields, SensorKind, type Sample } from '../../../shared/sample';

/** SQL, or code for a migration that converts data. Runs inside one transaction with the version bump. */
export type Migration = string | ((db: Db) => void);

/**
 * v1 -> v2: one row per sample becomes blocks of samples per stream (device x sweep or dataset). A run's samples
 * are its sweep's stream between started_at and ended_at, so the per-sample run tag goes.
 */
function sampleBlocks(db: Db): void {
  db.exec(sampleBlocksDdl());
  const writer = new SampleWriter(db);
  const groups = db.prepare('SELECT DISTINCT sweep_id, dataset_id, device_id FROM samples').all() as { sweep_id: number | null; dataset_id: number | null; device_id: number }[];
  for (const g of groups) {
    const owner = g.sweep_id !== null ? { sweep_id: g.sweep_id } : g.dataset_id !== null ? { dataset_id: g.dataset_id } : null;
    if (!owner) continue;
    const stream = streamFor(db, owner, g.device_id);
    // Paged (a connection cannot write while it iterates), in t order.
    const page = db.prepare(
      `SELECT id, t, power_kind, ${readingFields.join(', ')} FROM samples
       WHERE sweep_id IS ? AND dataset_id IS ? AND device_id = ? AND (t > ? OR (t = ? AND id > ?)) ORDER BY t, id LIMIT ${BLOCK_SAMPLES}`,
    );
    let after = { t: -Infinity, id: 0 };
    for (;;) {
      const rows = page.all(g.sweep_id, g.dataset_id, g.device_id, after.t, after.t, after.id) as (Omit<Sample, 'device_id'> & { id: number })[];
      if (rows.length === 0) break;
      after = { t: rows[rows.length - 1]!.t, id: rows[rows.length - 1]!.id };
      // Sensor kinds were free text in v1 ('counter-derived'); the sample model has three.
      const batch: Omit<Sample, 'device_id'>[] = rows.map(({ id: _id, ...r }) => {
        const kind = SensorKind.safeParse(r.power_kind);
        return { ...r, power_kind: kind.success ? kind.data : String(r.power_kind).startsWith('counter') ? 'counter' : 'average' };
      });
      writer.appendRows(stream, batch);
    }
    writer.close();
  }
  db.exec('DROP TABLE samples');
}

/** Schema migrations, applied in order; PRAGMA user_version holds how many have run. Append only. */
export const migrations: Migration[] = [
  `
  CREATE TABLE devices (
    id INTEGER PRIMARY KEY,
    device_key TEXT NOT NULL UNIQUE,        -- host/backend:index
    host TEXT NOT NULL,
    backend TEXT NOT NULL,
    idx INTEGER NOT NULL,
    kind TEXT NOT NULL,
    name TEXT NOT NULL,
    vendor TEXT NOT NULL,
    simulated INTEGER NOT NULL,
    uuid TEXT, pci_bus_id TEXT, driver TEXT, vbios TEXT,
    min_limit_w REAL, max_limit_w REAL, default_limit_w REAL,
    sensors TEXT NOT NULL DEFAULT '{}',
    updated_at REAL NOT NULL
  );
  CREATE TABLE datasets (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    source TEXT NOT NULL,
    format TEXT NOT NULL,
    content_hash TEXT,
    timezone TEXT,
    imported_at REAL NOT NULL,
    meta TEXT NOT NULL DEFAULT '{}'
  );
  CREATE TABLE sweeps (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    plan TEXT NOT NULL,
    status TEXT NOT NULL,
    host TEXT NOT NULL,
    backend TEXT NOT NULL,
    simulated INTEGER NOT NULL,
    pid INTEGER,
    error TEXT,
    created_at REAL NOT NULL,
    finished_at REAL
  );
  CREATE TABLE runs (
    id INTEGER PRIMARY KEY,
    sweep_id INTEGER NOT NULL REFERENCES sweeps(id) ON DELETE CASCADE,
    workload TEXT NOT NULL,
    cap_w REAL NOT NULL,
    repetition INTEGER NOT NULL,
    run_order INTEGER NOT NULL,
    status TEXT NOT NULL,
    exit_code INTEGER,
    error TEXT,
    started_at REAL, ended_at REAL,
    warmup_end REAL, measure_start REAL, measure_end REAL,
    units TEXT,
    throughput REAL, mean_power_w REAL, energy_j REAL, efficiency REAL, energy_sensor TEXT,
    enforced_limit_w REAL,
    output_tail TEXT
  );
  CREATE INDEX runs_sweep ON runs(sweep_id, run_order);
  CREATE TABLE run_devices (
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    device_id INTEGER NOT NULL REFERENCES devices(id),
    energy_j REAL, mean_power_w REAL, energy_sensor TEXT, enforced_limit_w REAL,
    PRIMARY KEY (run_id, device_id)
  );
  CREATE TABLE samples (
    id INTEGER PRIMARY KEY,
    sweep_id INTEGER REFERENCES sweeps(id) ON DELETE CASCADE,
    run_id INTEGER REFERENCES runs(id) ON DELETE SET NULL,
    dataset_id INTEGER REFERENCES datasets(id) ON DELETE CASCADE,
    device_id INTEGER NOT NULL REFERENCES devices(id),
    t REAL NOT NULL,
    power_w REAL, power_kind TEXT NOT NULL, power_avg_w REAL, energy_mj REAL,
    sm_clock_mhz REAL, mem_clock_mhz REAL, temp_c REAL, util_gpu REAL, util_mem REAL, mem_used_mb REAL,
    limit_w REAL, throttle_reasons INTEGER
  );
  CREATE INDEX samples_device_t ON samples(device_id, t);
  CREATE INDEX samples_run ON samples(run_id, device_id, t);
  CREATE INDEX samples_sweep ON samples(sweep_id);
  CREATE TABLE metrics (
    id INTEGER PRIMARY KEY,
    run_id INTEGER REFERENCES runs(id) ON DELETE CASCADE,
    dataset_id INTEGER REFERENCES datasets(id) ON DELETE CASCADE,
    t REAL NOT NULL,
    name TEXT NOT NULL,
    value REAL NOT NULL
  );
  CREATE INDEX metrics_run ON metrics(run_id, name, t);
  CREATE TABLE cap_journal (
    id INTEGER PRIMARY KEY,
    sweep_id INTEGER REFERENCES sweeps(id) ON DELETE SET NULL,
    device_key TEXT NOT NULL,
    backend TEXT NOT NULL,
    backend_opts TEXT NOT NULL DEFAULT '{}',
    idx INTEGER NOT NULL,
    device_name TEXT NOT NULL,
    before_w REAL NOT NULL,
    journalled_at REAL NOT NULL,
    restored_at REAL,
    restored_w REAL,
    error TEXT
  );
  CREATE INDEX cap_journal_open ON cap_journal(restored_at);
  `,
  sampleBlocks,
  // v2 -> v3: dataset segments, the imported counterpart of runs (sources of the analysis).
  `
  CREATE TABLE dataset_segments (
    id INTEGER PRIMARY KEY,
    dataset_id INTEGER NOT NULL REFERENCES datasets(id) ON DELETE CASCADE,
    start REAL NOT NULL,
    end REAL NOT NULL,
    device_keys TEXT,
    workload TEXT,
    cap_w REAL,
    units TEXT,
    units_in_window REAL,
    repetition INTEGER NOT NULL DEFAULT 1,
    label TEXT
  );
  CREATE INDEX dataset_segments_dataset ON dataset_segments(dataset_id, start);
  `,
  // v3 -> v4: what an import records: its files (content hash, for dedupe), its report, and where segments came from.
  `
  ALTER TABLE datasets ADD COLUMN report TEXT NOT NULL DEFAULT '{}';
  ALTER TABLE datasets ADD COLUMN samples INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE datasets ADD COLUMN t_start REAL;
  ALTER TABLE datasets ADD COLUMN t_end REAL;
  CREATE TABLE dataset_files (
    id INTEGER PRIMARY KEY,
    dataset_id INTEGER NOT NULL REFERENCES datasets(id) ON DELETE CASCADE,
    path TEXT NOT NULL,
    format TEXT NOT NULL,
    bytes INTEGER NOT NULL,
    content_hash TEXT NOT NULL
  );
  CREATE INDEX dataset_files_hash ON dataset_files(content_hash);
  ALTER TABLE dataset_segments ADD COLUMN origin TEXT NOT NULL DEFAULT 'structure';
  `,
  // v4 -> v5: runs store facts (work units in the window, GPUs, measured CPU energy); throughput, mean power and
  // efficiency are computed from them in src/core (figures.ts). Earlier runs get their facts back from the figures
  // they stored.
  `
  ALTER TABLE runs ADD COLUMN units_in_window REAL;
  ALTER TABLE runs ADD COLUMN gpus INTEGER;
  ALTER TABLE runs ADD COLUMN cpu_energy_j REAL;
  UPDATE runs SET gpus = MAX(1, (SELECT COUNT(*) FROM run_devices rd JOIN devices d ON d.id = rd.device_id WHERE rd.run_id = runs.id AND d.kind = 'gpu'));
  UPDATE runs SET units_in_window = throughput * gpus * (measure_end - measure_start)
    WHERE throughput IS NOT NULL AND measure_start IS NOT NULL AND measure_end IS NOT NULL;
  UPDATE runs SET cpu_energy_j = (SELECT SUM(rd.energy_j) FROM run_devices rd JOIN devices d ON d.id = rd.device_id WHERE rd.run_id = runs.id AND d.kind = 'cpu')
    WHERE NOT EXISTS (SELECT 1 FROM run_devices rd JOIN devices d ON d.id = rd.device_id WHERE rd.run_id = runs.id AND d.kind = 'cpu' AND rd.energy_j IS NULL);
  `,
  // v5 -> v6: stored plans carry the plan schema version they were written with (0.1.0's are 1); read leniently.
  `ALTER TABLE sweeps ADD COLUMN plan_version INTEGER NOT NULL DEFAULT 1;`,
  // The run record's software side (host, OS, CapLab version and commit) as JSON, taken when the sweep starts.
  `ALTER TABLE sweeps ADD COLUMN environment TEXT;`,
  // v7 -> v8: cluster jobs (`caplab cluster submit`) and which node ran each merged run. IF NOT EXISTS: builds of
  // the cluster branch created these tables on first use, before they were a migration.
  `
  CREATE TABLE IF NOT EXISTS cluster_jobs (
    job_id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    dir TEXT NOT NULL,
    shard_by TEXT NOT NULL,
    tasks INTEGER NOT NULL,
    nodes INTEGER NOT NULL,
    submitted_at REAL NOT NULL,
    sweep_id INTEGER REFERENCES sweeps(id) ON DELETE SET NULL
  );
  CREATE TABLE IF NOT EXISTS cluster_runs (
    run_id INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
    sweep_id INTEGER NOT NULL REFERENCES sweeps(id) ON DELETE CASCADE,
    task INTEGER NOT NULL,
    task_run_id INTEGER NOT NULL,
    node TEXT NOT NULL,
    hostname TEXT NOT NULL,
    UNIQUE (sweep_id, task, task_run_id)
  );
  CREATE TABLE IF NOT EXISTS cluster_nodes (
    sweep_id INTEGER NOT NULL REFERENCES sweeps(id) ON DELETE CASCADE,
    task INTEGER NOT NULL,
    node TEXT NOT NULL,
    hostname TEXT NOT NULL,
    slurm_job_id TEXT,
    status TEXT NOT NULL,
    devices TEXT NOT NULL,
    PRIMARY KEY (sweep_id, task)
  );
  `,  // v8 -> v9: imported node-level and facility series were stored as kind 'gpu'; they are what they are (NLR
  // aggregated profiles: GPU + CPU summed over the nodes; NLR facility profiles: a whole site).
  `
  UPDATE devices SET kind = 'node' WHERE host LIKE 'dataset:%' AND backend = 'nlr-parquet' AND kind = 'gpu';
  UPDATE devices SET kind = 'facility' WHERE host LIKE 'dataset:%' AND backend = 'facility-csv' AND kind = 'gpu';
  `,
  // v9 -> v10: why each run was done (first pass, refinement, a sequential repetition) and what the adaptive plan
  // decided for it (window settled, cool-down waited), as JSON (issue 28).
  `
  ALTER TABLE runs ADD COLUMN reason TEXT;
  ALTER TABLE runs ADD COLUMN adaptive TEXT;
  `,
  // v10 -> v11: the user's tags (a JSON array of strings) and notes on a sweep, edited on the History page.
  `
  ALTER TABLE sweeps ADD COLUMN tags TEXT NOT NULL DEFAULT '[]';
  ALTER TABLE sweeps ADD COLUMN notes TEXT NOT NULL DEFAULT '';
  `,
  // v11 -> v12: one row a sweep rewrites at its start, commit after commit, so that the WAL grows and holds room for
  // the sweep's end record on a full disk (store/reserve.ts).
  `
  CREATE TABLE IF NOT EXISTS space_reserve (id INTEGER PRIMARY KEY, n INTEGER NOT NULL);
  `,
  // v12 -> v13: a tuning session's outcome (its last tune.status as JSON: the cap held, visits, profiling share, the
  // tuner's decision), so the console shows it when opened after the session ended.
  `
  ALTER TABLE sweeps ADD COLUMN tune_status TEXT;
  `,
  // v13 -> v14: a tuning session's end report as `caplab tune` printed it (cap held, energy, saving and slowdown with
  // their intervals, profiling time), so History, Results and `caplab runs` show it for past sessions.
  `
  ALTER TABLE sweeps ADD COLUMN tune_report TEXT;
  `,
];
