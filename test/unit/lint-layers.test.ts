// The layer map is enforced by the real ESLint config: planted imports across a layer boundary fail lint, and so does
// SQL planted outside src/main/lab/store.
import { describe, expect, it } from 'vitest';
import { ESLint } from 'eslint';

const eslint = new ESLint({ cwd: process.cwd() });

async function errorsOf(rule: string, filePath: string, code: string): Promise<string[]> {
  const [r] = await eslint.lintText(code, { filePath });
  return r!.messages.filter((m) => m.ruleId === rule).map((m) => m.message);
}

const layerErrors = (filePath: string, code: string) => errorsOf('no-restricted-imports', filePath, code);
const sqlErrors = (filePath: string, code: string) => errorsOf('no-restricted-syntax', filePath, code);

describe('layer map', { timeout: 60_000 }, () => {
  it('fails a planted lab -> host import, and lab -> cli', async () => {
    expect(await layerErrors('src/main/lab/planted.ts', "import { startServer } from '../host/server';\nexport const x = startServer;\n")).toEqual([
      expect.stringMatching(/src\/main\/lab is the engine: it imports neither the browser host nor the CLI/),
    ]);
    expect(await layerErrors('src/main/lab/sweep/planted.ts', "import { main } from '../../cli/main';\nexport const x = main;\n")).toHaveLength(1);
  });

  it('fails host -> cli, renderer -> core analysis and core -> lab; allows the sanctioned edges', async () => {
    expect(await layerErrors('src/main/host/planted.ts', "import { main } from '../cli/main';\nexport const x = main;\n")).toHaveLength(1);
    expect(await layerErrors('src/renderer/planted.ts', "import { analyzeSweep } from '../core/analysis/analyze';\nexport const x = analyzeSweep;\n")).toHaveLength(1);
    expect(await layerErrors('src/core/planted.ts', "import { Engine } from '../main/lab/engine';\nexport const x = Engine;\n")).toHaveLength(1);
    expect(await layerErrors('src/renderer/planted.ts', "import { decimateMinMax } from '../core/decimate';\nexport const x = decimateMinMax;\n")).toEqual([]);
    expect(await layerErrors('src/main/cli/planted.ts', "import { startServer } from '../host/server';\nexport const x = startServer;\n")).toEqual([]);
    expect(await layerErrors('src/main/host/planted.ts', "import { Engine } from '../lab';\nexport const x = Engine;\n")).toEqual([]);
  });

  it('fails better-sqlite3 outside src/main/lab/store (engine, host, CLI, Electron); allows it in the store', async () => {
    const code = "import Database from 'better-sqlite3';\nexport const open = (f: string) => new Database(f);\n";
    for (const file of ['src/main/lab/sweep/planted.ts', 'src/main/host/planted.ts', 'src/main/cli/planted.ts', 'src/main/electron/planted.ts']) {
      expect(await layerErrors(file, code), file).toEqual([expect.stringMatching(/Only src\/main\/lab\/store\/ opens SQLite/)]);
    }
    expect(await layerErrors('src/main/lab/store/planted.ts', code)).toEqual([]);
    // The store is still engine code: it does not import the host.
    expect(await layerErrors('src/main/lab/store/planted.ts', "import { startServer } from '../../host/server';\nexport const x = startServer;\n")).toHaveLength(1);
  });
});

describe('SQL only in src/main/lab/store', { timeout: 60_000 }, () => {
  const prepare = "import type { Db } from '../store/db';\nexport const one = (db: Db) => db.prepare('SELECT 1').get();\n";

  it('fails a planted .prepare( outside the store and allows it inside', async () => {
    expect(await sqlErrors('src/main/lab/cluster/x.ts', prepare)).toEqual([expect.stringMatching(/SQL lives in src\/main\/lab\/store\//)]);
    expect(await sqlErrors('src/main/cli/commands/x.ts', prepare)).toHaveLength(1);
    expect(await sqlErrors('src/main/lab/store/x.ts', prepare.replace('../store/db', './db'))).toEqual([]);
  });

  it('fails the connection\'s exec, pragma and transaction outside the store, however the connection is reached', async () => {
    const code = [
      "import type { Db } from '../store/db';",
      'export function f(db: Db, ctx: { db: Db }, labDb: Db): void {',
      "  db.exec('BEGIN IMMEDIATE');",
      "  ctx.db.exec('COMMIT');",
      "  labDb.exec('ROLLBACK');",
      "  db.pragma('busy_timeout = 2000');",
      '  db.transaction(() => undefined)();',
      '}',
      'export class C {',
      '  constructor(private readonly db: Db) {}',
      "  g(): void { this.db.exec('VACUUM'); }",
      '}',
      '',
    ].join('\n');
    expect(await sqlErrors('src/main/lab/sweep/x.ts', code)).toHaveLength(6);
    expect(await sqlErrors('src/main/lab/store/x.ts', code.replace('../store/db', './db'))).toEqual([]);
  });

  it('allows RegExp exec outside the store', async () => {
    const code = "const RE = /^(\\d+)W$/;\nexport const watts = (s: string) => RE.exec(s)?.[1] ?? /cap=(\\d+)/.exec(s)?.[1];\nexport function all(re: RegExp, s: string) {\n  for (let m = re.exec(s); m; m = re.exec(s)) void m;\n}\n";
    expect(await sqlErrors('src/main/lab/cluster/x.ts', code)).toEqual([]);
    expect(await sqlErrors('src/renderer/lib/x.ts', code)).toEqual([]);
  });
});

describe('faces reach the engine through its door', { timeout: 60_000 }, () => {
  const internal = (up: string) => `import { getSweep } from '${up}lab/store/sweeps';\nexport const x = getSweep;\n`;
  const door = (up: string) => `import { Engine } from '${up}lab';\nimport { VERSION } from '${up}lab/basics';\nexport const x = [Engine, VERSION];\n`;

  it('fails a planted import of an engine internal from a CLI command, the CLI root, the host and the Electron shell', async () => {
    for (const [file, up] of [['src/main/cli/commands/planted.ts', '../../'], ['src/main/cli/planted.ts', '../'], ['src/main/host/planted.ts', '../'], ['src/main/electron/planted.ts', '../']] as const) {
      expect(await layerErrors(file, internal(up)), file).toEqual([expect.stringMatching(/A face imports the engine through its door/)]);
      expect(await layerErrors(file, `import { Engine } from '${up}lab/engine';\nexport const x = Engine;\n`), file).toHaveLength(1);
    }
  });

  it('allows the door (lab/index, lab/basics) and src/shared, and leaves the engine\'s own imports alone', async () => {
    expect(await layerErrors('src/main/cli/commands/planted.ts', door('../../'))).toEqual([]);
    expect(await layerErrors('src/main/host/planted.ts', door('../'))).toEqual([]);
    expect(await layerErrors('src/main/cli/planted.ts', "import { LabError } from '../../shared/errors';\nexport const x = LabError;\n")).toEqual([]);
    expect(await layerErrors('src/main/lab/sweep/planted.ts', internal('../'))).toEqual([]);
  });

  it('allows an engine-free command its standalone door, and only that folder, not what lies behind it', async () => {
    const standalone = "import { openLabBackend } from '../../lab/standalone/devices';\nexport const x = openLabBackend;\n";
    expect(await layerErrors('src/main/cli/commands/planted.ts', standalone)).toEqual([]);
    const behind = "import { openLabBackend } from '../../lab/gpu/lab-backend';\nexport const x = openLabBackend;\n";
    expect(await layerErrors('src/main/cli/commands/planted.ts', behind)).toEqual([expect.stringMatching(/A face imports the engine through its door/)]);
    const deeper = "import { x } from '../../lab/standalone/inner/more';\nexport const y = x;\n";
    expect(await layerErrors('src/main/cli/commands/planted.ts', deeper)).toHaveLength(1);
  });

  it('the commands that have gone through the door stay there', async () => {
    // export and report went through engine.files (issue #26), the rest through the door's exports, an engine method
    // (cluster task runs) or a standalone door: an internal import there fails again.
    const through = ['export', 'report', 'doctor', 'sweep', 'devices', 'exporter', 'throughput', 'workloads', 'sim-workload', 'serve', 'cluster', 'tune', 'facility'];
    for (const file of [...through.map((c) => `src/main/cli/commands/${c}.ts`), 'src/main/cli/serve-metrics.ts', 'src/main/cli/cluster-task.ts']) {
      expect(await layerErrors(file, internal('../../')), file).toHaveLength(1);
    }
  });
});
