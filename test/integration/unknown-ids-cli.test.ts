// Issue #25, finding 9: every command that takes an id, given one the database does not have, exits 2 naming it
// (README: "exit 2 naming the sweep"); `caplab runs --sweep 42` printed [] / "no sweeps recorded yet" and exited 0.
// Through the real CLI on a real SQLite file that holds one imported dataset (id 1, segments 1 and 2) and no sweeps.
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli';
import { importTestEnv } from '../helpers/import-env';

const { tmp, fx, freshDb } = importTestEnv('caplab-unknown-ids-');
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  env = freshDb();
  const r = await runCli(['import', fx('hpcai-tree'), '--tz', 'UTC', '--json'], env);
  expect(r.code).toBe(0);
}, 60_000);

const out = (f: string) => join(tmp.dir, f);

describe('an id the database does not have: exit 2, naming it', () => {
  const cases: [string[], RegExp][] = [
    [['runs', '--sweep', '42'], /no sweep 42/],
    [['runs', '--sweep', '42', '--json'], /no sweep 42/],
    [['runs', '--sweep', '42', '--limit', '5'], /no sweep 42/],
    [['samples', '--run', '42'], /no run 42/],
    [['samples', '--segment', '42'], /segment 42/],
    [['analyze', '42'], /no sweep 42/],
    [['analyze', '--dataset', '42'], /dataset 42/],
    [['report', '42', '--html', out('r.html')], /sweep 42/],
    [['report', '--compare', '42,43', '--html', out('c.html')], /sweep 42/],
    [['export', 'samples', '--sweep', '42', '--csv', out('s.csv')], /no sweep 42/],
    [['export', 'samples', '--run', '42', '--csv', out('s.csv')], /no run 42/],
    [['export', 'samples', '--dataset', '42', '--csv', out('s.csv')], /no dataset 42/],
    [['export', 'runs', '42', '--csv', out('runs.csv')], /no sweep 42/],
    [['export', 'json', '42', '--out', out('x.json')], /no sweep 42/],
    [['compare', '42', '43'], /sweep 42/],
    [['compare', '42', '--dataset', '1'], /sweep 42/],
    [['datasets', '42'], /dataset 42/],
    [['datasets', '42', '--delete'], /dataset 42/],
    [['energy', '--dataset', '42'], /dataset 42/],
    [['energy', '--dataset', '1', '--segment', '42'], /segment 42/],
    [['cluster', 'nodes', '42'], /sweep 42/],
    [['cluster', 'status', '42'], /42/],
    [['cluster', 'collect', '42'], /42/],
  ];
  it(`all ${cases.length} commands`, async () => {
    // Three CLI processes at a time: each is a cold Node start, and CI has 2 cores.
    const results: { args: string[]; named: RegExp; code: number | null; stdout: string; stderr: string }[] = [];
    for (let i = 0; i < cases.length; i += 3)
      results.push(...(await Promise.all(cases.slice(i, i + 3).map(async ([args, named]) => ({ args, named, ...(await runCli(args, env)) })))));
    for (const r of results) {
      const what = `caplab ${r.args.join(' ')}: ${r.stderr.trim()}`;
      expect(r.stderr, what).toMatch(r.named);
      expect(r.code, what).toBe(2);
      expect(r.stderr, what).not.toMatch(/\n\s+at /);
      expect(r.stdout, what).not.toMatch(/^\[\]/);
    }
  }, 240_000);

  it('the ids it has still work (dataset 1, its segment 1)', async () => {
    expect((await runCli(['datasets', '1', '--json'], env)).code).toBe(0);
    expect((await runCli(['energy', '--dataset', '1', '--segment', '1', '--json'], env)).code).toBe(0);
    expect((await runCli(['samples', '--segment', '1', '--limit', '2'], env)).code).toBe(0);
    // No sweeps at all: the plain list still says so and exits 0.
    const all = await runCli(['runs'], env);
    expect(all.code).toBe(0);
    expect(all.stdout).toMatch(/no sweeps recorded yet/);
  }, 60_000);
});
