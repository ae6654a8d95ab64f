// Bundled by bench/import.ts and run as `node runner.mjs FILE DB`: one `caplab import` of FILE into DB through the
// same code as the CLI (importPaths), without the tsx loader the development CLI carries.
import { importPaths } from '../src/main/lab/datasets/importer';
import { openDb } from '../src/main/lab/store/db';

const [file, dbFile] = process.argv.slice(2);
const db = openDb(dbFile!);
const t0 = performance.now();
const out = await importPaths(db, [file!], { format: 'auto', zone: 'UTC' });
const wall = (performance.now() - t0) / 1000;
db.close();
process.stdout.write(JSON.stringify({ samples: out.dataset?.samples ?? 0, rows: out.reports[0]?.rows_read ?? 0, wall_s: wall }) + '\n');
