// Issue #25, finding 7: a units/J figure says what energy it includes, on datasets as on sweeps. A dataset's 0.1830
// images/J silently included 100 W of node overhead (4000 images / 20,250 J of GPU energy is 0.198).
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli';
import { importTestEnv, json } from '../helpers/import-env';

const { fx, freshDb } = importTestEnv('caplab-energy-basis-');
let env: NodeJS.ProcessEnv;
interface Seg {
  segment: { units_in_window: number; start: number; end: number };
  energy: { energy_j: number };
  efficiency: number;
  efficiency_basis: string;
  efficiency_gpu_only: number;
}

beforeAll(async () => {
  env = freshDb();
  expect((await runCli(['import', fx('hpcai-tree'), '--tz', 'UTC'], env)).code).toBe(0);
}, 60_000);

describe('analyze --dataset says what units/J counts', () => {
  it('JSON: each segment\'s basis, and the figure without the overhead beside it; the sweep-like groups too', async () => {
    const r = await runCli(['analyze', '--dataset', '1', '--overhead', '100', '--json'], env);
    expect(r.code).toBe(0);
    const a = json<{ segments: Seg[]; sweep: { groups: { energy_basis: string }[] } }>(r.stdout);
    for (const s of a.segments) {
      expect(s.efficiency_basis).toBe('GPU energy + 100 W node overhead');
      expect(s.efficiency_gpu_only).toBeCloseTo(s.segment.units_in_window / s.energy.energy_j, 9);
      expect(s.efficiency).toBeCloseTo(s.segment.units_in_window / (s.energy.energy_j + 100 * (s.segment.end - s.segment.start)), 9);
      expect(s.efficiency).toBeLessThan(s.efficiency_gpu_only);
    }
    expect(a.sweep.groups[0]!.energy_basis).toBe('GPU energy + 100 W node overhead');
    const none = json<{ segments: Seg[] }>((await runCli(['analyze', '--dataset', '1', '--overhead', '0', '--json'], env)).stdout);
    expect(none.segments[0]!.efficiency_basis).toBe('GPU energy (GPU only: 0 W node overhead)');
    expect(none.segments[0]!.efficiency).toBeCloseTo(none.segments[0]!.efficiency_gpu_only, 12);
  }, 60_000);
  it('text: a column names it', async () => {
    const r = await runCli(['analyze', '--dataset', '1'], env);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('units/J counts');
    expect(r.stdout).toContain('GPU energy + 100 W node overhead');
  }, 30_000);
});
