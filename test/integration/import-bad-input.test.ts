// Bad input to `caplab import` (issue #32, items 3-6): values the store cannot hold, impossible readings, files
// that yield no reading, very long lines, stored zip members. Real files in a temp folder, real SQLite databases;
// the real CLI where the exit code is the point, the importer itself for the long lists of files.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli';
import { importTestEnv, json } from '../helpers/import-env';
import { importPaths } from '../../src/main/lab/datasets/importer';
import { openDb } from '../../src/main/lab/store/db';
import { ImportError } from '../../src/core/import';
import type { ImportFormat, ImportReport } from '../../src/shared/dataset';

const { tmp, fx, freshDb } = importTestEnv('caplab-bad-input-');
const fixture = (f: string) => readFileSync(fx(f), 'utf8');
let files = 0;
const write = (name: string, content: string | Buffer): string => {
  const p = join(tmp.dir, `${++files}-${name}`);
  writeFileSync(p, content);
  return p;
};
const datasetsIn = (db: string): number => {
  const d = new Database(db, { readonly: true });
  const n = (d.prepare('SELECT COUNT(*) AS n FROM datasets').get() as { n: number }).n + (d.prepare('SELECT COUNT(*) AS n FROM sample_blocks').get() as { n: number }).n;
  d.close();
  return n;
};

/** The importer's refusal of one file (engine.importPaths' own error), on a fresh database that must stay empty. */
async function refusal(path: string, format: ImportFormat | 'auto' = 'auto'): Promise<ImportError> {
  const env = freshDb();
  const db = openDb(env.CAPLAB_DB);
  try {
    await importPaths(db, [path], { format, zone: 'UTC', parse_thread: 'inline' });
  } catch (e) {
    // The engine turns an ImportError into the 'invalid' DatasetError (exit 2, HTTP 400), as the CLI cases show.
    expect(e).toBeInstanceOf(ImportError);
    return e as ImportError;
  } finally {
    db.close();
  }
  expect(datasetsIn(env.CAPLAB_DB)).toBe(0);
  throw new Error(`${path} was imported`);
}

describe('values the store cannot hold: exit 2 naming the file and line, nothing written', () => {
  it.each([
    ['nvidia-smi, year 9999', 'smi.csv', () => fixture('nvidia-smi-seed.csv').replace('2026/11/30 08:45:57.774', '9999/11/30 08:45:57.774'), /smi\.csv:4: timestamp 9999-11-30T08:45:57\.774Z is outside the range the store holds/],
    ['Prometheus, t = 1e300', 'prom.json', () => fixture('prometheus-dcgm.json').replace('[1796032800,"612.455"]', '[1e300,"612.455"]'), /prom\.json: series 1 \(DCGM_FI_DEV_POWER_USAGE\), point 1: timestamp 1e\+300 s/],
    ['facility CSV, 99999999999999999999 W', 'fac.csv', () => fixture('facility-profile.csv').replace('2381250.5', '99999999999999999999'), /fac\.csv:2: power 100000000000000000000 W is beyond what the store holds/],
  ])('%s', async (_, name, content, message) => {
    const env = freshDb();
    const r = await runCli(['import', write(name, content()), '--tz', 'UTC'], env);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).not.toMatch(/internal error/);
    expect(datasetsIn(env.CAPLAB_DB)).toBe(0);
  });

  it('every format refuses them the same way through the importer', async () => {
    const cases: [string, string, RegExp][] = [
      ['w.log', fixture('wattameter-node.log').replace('2026-11-30_08:45:57.673370', '9999-11-30_08:45:57.673370'), /w\.log:2: timestamp 9999/],
      ['p.json', fixture('prometheus-dcgm.json').replace('[1796032800,"612.455"]', '[-1e12,"612.455"]'), /p\.json: series 1 .*timestamp -1000000000000 s/],
      ['zeus.csv', fixture('zeus-windows.csv').replace('37500.0', 'Infinity'), /zeus\.csv:2: power \(from an energy counter\) Infinity W/],
      ['zeus2.csv', fixture('zeus-windows.csv').replace('37500.0', '1e309'), /zeus2\.csv:2: power/],
      ['f.csv', fixture('facility-profile.csv').replace('2381250.5', 'Infinity'), /f\.csv:2: power Infinity W/],
      ['s.csv', fixture('nvidia-smi-seed.csv').replace('612.45', '1e308'), /s\.csv:2: power 1e\+308 W/],
    ];
    for (const [name, content, message] of cases) expect((await refusal(write(name, content))).message).toMatch(message);
  });
});

describe('physically impossible readings are skipped and counted; readings out of time order are warned about', () => {
  it('-612.45 W, 99,999,999 W and -300 °C: skipped with their lines, energy from the plausible rows only', async () => {
    const lines = fixture('nvidia-smi-seed.csv').trimEnd().split('\n');
    lines[1] = lines[1]!.replace('612.45', '-612.45');
    lines[3] = lines[3]!.replace('615.10', '99999999');
    lines[4] = lines[4]!.replace(/, 58$/, ', -300');
    // GPU 1's last reading moved before its first: out of time order.
    const file = write('implausible.csv', [lines[0], lines[6], lines[1], lines[2], lines[3], lines[4], lines[5]].join('\n') + '\n');
    const env = freshDb();
    const r = await runCli(['import', file, '--tz', 'UTC', '--json'], env);
    expect(r.code, r.stderr).toBe(0);
    const rep = json<{ dataset: { samples: number; report: ImportReport } }>(r.stdout).dataset;
    expect(rep.samples).toBe(3);
    expect(rep.report.skipped).toEqual([
      { reason: 'impossible power: below 0 W', count: 1, lines: [3] },
      { reason: 'impossible power: above 10000 W for a gpu', count: 1, lines: [5] },
      { reason: 'impossible temperature: at or below -273.15 °C', count: 1, lines: [6] },
    ]);
    expect(rep.report.reordered).toEqual({ count: 1, lines: [4] });
    expect(rep.report.warnings).toContain("1 reading(s) go back in time from their device's previous one (line 4): they are stored in time order");
    const e = await runCli(['energy', '--dataset', '1', '--json'], env);
    expect(e.code, e.stderr).toBe(0);
    for (const d of json<{ devices: { mean_w: number | null }[] }>(e.stdout).devices) if (d.mean_w !== null) expect(d.mean_w).toBeLessThan(700);
  });

  it('parsed in chunks on two threads, the report is the one parser of the whole file gives', async () => {
    const lines = fixture('nvidia-smi-seed.csv').trimEnd().split('\n');
    const body: string[] = [];
    for (let k = 0; k < 400; k++) {
      const t = `2026/11/30 08:${String(10 + Math.floor(k / 60)).padStart(2, '0')}:${String(k % 60).padStart(2, '0')}.000`;
      const row = lines[1 + (k % 2)]!.replace(/^[^,]+/, t);
      body.push(k % 97 === 5 ? row.replace(/, (612\.45|598\.02),/, ', -1,') : row);
    }
    [body[300], body[302]] = [body[302]!, body[300]!];
    const file = write('chunked.csv', [lines[0], ...body].join('\n') + '\n');
    const reports: ImportReport[] = [];
    for (const parse_thread of ['inline', 'shards'] as const) {
      const db = openDb(freshDb().CAPLAB_DB);
      const out = await importPaths(db, [file], { format: 'auto', zone: 'UTC', parse_thread, shard_bytes: 4096 });
      reports.push(out.reports[0]!);
      db.close();
    }
    expect(reports[0]!.skipped).toEqual([{ reason: 'impossible power: below 0 W', count: 5, lines: [7, 104, 201, 298, 395] }]);
    expect(reports[0]!.reordered).toEqual({ count: 1, lines: [304] });
    expect(reports[1]!.skipped).toEqual(reports[0]!.skipped);
    expect(reports[1]!.reordered).toEqual(reports[0]!.reordered);
    expect(reports[1]!.warnings).toEqual(reports[0]!.warnings);
  });
});

describe('a file that yields no reading is bad input: exit 2, nothing written', () => {
  it('a header-only nvidia-smi log, through the CLI', async () => {
    const env = freshDb();
    const r = await runCli(['import', write('header.csv', fixture('nvidia-smi-seed.csv').split('\n')[0] + '\n'), '--tz', 'UTC'], env);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/header\.csv: no reading to import: no data rows/);
    expect(datasetsIn(env.CAPLAB_DB)).toBe(0);
  });

  it('header-only files of every text format, a quoted CSV, NUL bytes, missing columns, a [kW] header over W values, no known Prometheus metric', async () => {
    const header = (f: string, n = 1) => fixture(f).split('\n').slice(0, n).join('\n') + '\n';
    const smiHead = header('nvidia-smi-seed.csv');
    const prom = fixture('prometheus-dcgm.json').replace(/DCGM_FI_DEV_[A-Z_]+/g, 'node_cpu_seconds_total');
    const cases: [string, string | Buffer, ImportFormat | 'auto', RegExp][] = [
      ['w.log', header('wattameter-node.log'), 'auto', /no data rows/],
      ['zeus.csv', header('zeus-windows.csv'), 'auto', /no data rows/],
      ['cc.csv', header('codecarbon-emissions.csv'), 'auto', /no data rows/],
      ['dmon.txt', header('dcgmi-dmon.txt', 2), 'auto', /no data rows/],
      ['fac.csv', header('facility-profile.csv'), 'auto', /no data rows/],
      // Each row quoted whole (a spreadsheet's export of one-column lines): no field is read.
      ['quoted.csv', smiHead + fixture('nvidia-smi-seed.csv').trimEnd().split('\n').slice(1).map((l) => `"${l}"`).join('\n') + '\n', 'auto', /every row was skipped \(unreadable timestamp: 6 \(lines 2, 3, 4, 5, 6, \.\.\.\)\)/],
      ['nul.csv', Buffer.concat([Buffer.from(smiHead), Buffer.alloc(300), Buffer.from('\n')]), 'auto', /every row was skipped \(unreadable timestamp: 1 \(line 2\)\)/],
      ['missing.csv', 'timestamp, index, power.draw [W]\n2026/11/30 08:45:57.673, 0\n', 'auto', /every row was skipped \(truncated row: 2 of 3 fields: 1 \(line 2\)\)/],
      ['fac-missing.csv', 'timestamp,power_W,utilization\n2019-01-01 00:00:00,,\n', 'auto', /every row was skipped \(power_W is not a number: 1 \(line 2\)\)/],
      ['kw.csv', 'timestamp, index, power.draw [kW]\n2026/11/30 08:45:57.673, 0, 612.45\n', 'auto', /every row was skipped \(impossible power: above 10000 W for a gpu: 1 \(line 2\)\)/],
      ['prom.json', prom, 'auto', /no data rows; metric "node_cpu_seconds_total" is not imported/],
    ];
    for (const [name, content, format, message] of cases) {
      const e = await refusal(write(name, content), format);
      expect(e.message).toMatch(new RegExp(`${name}: no reading to import`));
      expect(e.message).toMatch(message);
    }
  });
});

describe('a line too long to read', () => {
  // 3 MiB stands for the probe's 200 MB: past the 64 KiB line limit and across several 1 MiB read chunks.
  const long = 'x'.repeat(3 * 2 ** 20);

  it('a header then one very long line: exit 2 saying so, with the line, nothing written', async () => {
    const env = freshDb();
    const r = await runCli(['import', write('long-line.csv', `timestamp, index, power.draw [W]\n2026/11/30 08:45:57.673, 0, ${long}\n`), '--tz', 'UTC'], env);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/long-line\.csv: no reading to import: every row was skipped \(line longer than 64 KiB: 1 \(line 2\)\)/);
    expect(r.stderr.length).toBeLessThan(2000);
    expect(datasetsIn(env.CAPLAB_DB)).toBe(0);
  });

  it('a file of one very long line is not called empty', async () => {
    const e = await refusal(write('one-line.csv', `timestamp, index, power.draw [W]${long}`), 'nvidia-smi');
    expect(e.message).not.toMatch(/empty file/);
    expect(e.message).toMatch(/one-line\.csv: no header and no rows \(line longer than 64 KiB: 1 \(line 1\)\)/);
  });
});

describe('stored (uncompressed) zip members', () => {
  // A zip of one stored member (method 0), as `zip -0` writes it, built by hand: local header, data, central directory.
  function storedZip(name: string, data: Buffer, crc: number): Buffer {
    const n = Buffer.from(name);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(10, 4);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(n.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(10, 6);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(n.length, 28);
    const end = Buffer.alloc(22);
    end.writeUInt32LE(0x06054b50, 0);
    end.writeUInt16LE(1, 8);
    end.writeUInt16LE(1, 10);
    end.writeUInt32LE(46 + n.length, 12);
    end.writeUInt32LE(30 + n.length + data.length, 16);
    return Buffer.concat([local, n, data, central, n, end]);
  }
  const seed = readFileSync(fx('nvidia-smi-seed.csv'));
  const crc = (b: Buffer) => {
    let c = ~0;
    for (const x of b) {
      c ^= x;
      for (let k = 0; k < 8; k++) c = (c >>> 1) ^ (0xedb88320 & -(c & 1));
    }
    return ~c >>> 0;
  };

  it('are read (yauzl refused them: "options.decompress can only be specified for compressed entries")', async () => {
    const env = freshDb();
    const r = await runCli(['import', write('stored.zip', storedZip('seed.csv', seed, crc(seed))), '--tz', 'UTC', '--json'], env);
    expect(r.code, r.stderr).toBe(0);
    expect(json<{ dataset: { samples: number } }>(r.stdout).dataset.samples).toBe(6);
  });

  it('a corrupted stored member fails naming the archive and member (its CRC-32), exit 2, nothing written', async () => {
    const bad = Buffer.from(seed);
    bad.write('\u00ff\u0000zz', seed.indexOf('08:45:57.676'), 'latin1');
    const env = freshDb();
    const r = await runCli(['import', write('corrupt.zip', storedZip('seed.csv', bad, crc(seed))), '--tz', 'UTC'], env);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/corrupt\.zip\/seed\.csv: member data does not match the CRC-32 the archive records/);
    expect(datasetsIn(env.CAPLAB_DB)).toBe(0);
  });
});
