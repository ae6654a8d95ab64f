import { describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../helpers/cli';
import { tempDir } from '../helpers/tmp';

const FIXTURE = 'test/fixtures/facility/grid-site.yaml';

describe('caplab facility with a grid config', () => {
  it('reports each event as JSON, writes the grid draw as a CSV column, and prints the grid tables', async () => {
    const tmp = tempDir();
    try {
      const out = join(tmp.dir, 'csv');
      const r = await runCli(['facility', FIXTURE, '--json', '--csv', out, '--threads', '0'], {});
      expect(r.code, r.stderr).toBe(0);
      const j = JSON.parse(r.stdout);
      const [caps, pause] = j.scenarios.map((s: { levels: { grid: Record<string, unknown> }[] }) => s.levels[0]!.grid);
      for (const g of [caps, pause]) {
        expect(g.events).toHaveLength(1);
        const e = g.events[0];
        expect(e.name).toBe('afternoon');
        expect(e.due_h - e.request_h).toBeCloseTo(10 / 60, 9);
        expect(e.requested_w).toBeCloseTo(0.2 * e.baseline_w, 6);
        expect(e.series.t_h.length).toBe(e.series.delivered_w.length);
        expect(g.battery.discharged_mwh).toBeGreaterThan(0);
        expect(g.series_w).toBeUndefined();
      }
      // Caps (after the battery) meet the event; pausing half of one type's jobs alone does not, and says by how much.
      expect(caps.events[0].met_share).toBe(1);
      expect(caps.events[0].shortfall_mwh).toBe(0);
      expect(pause.events[0].met_share).toBeLessThan(1);
      expect(pause.events[0].shortfall_mwh).toBeGreaterThan(0);
      // Caps lose work and defer none; pausing alone defers work and loses none.
      const sum = (o: Record<string, number>) => Object.values(o).reduce((a, b) => a + b, 0);
      expect(sum(caps.events[0].work_lost_node_h)).toBeGreaterThan(0);
      expect(sum(pause.events[0].work_lost_node_h)).toBe(0);
      expect(sum(pause.events[0].deferred_node_h)).toBeGreaterThan(0);
      expect(pause.events[0].rebound_node_h).toBeCloseTo(sum(pause.events[0].deferred_node_h), 6);
      const lines = readFileSync(join(out, 'caps-pause_60u_power.csv'), 'utf8').trim().split('\n');
      expect(lines[0]).toBe('timestamp,power_W,utilization,total_power_W,grid_power_W');
      expect(lines).toHaveLength(1 + 4 * 1440);
      const grid = lines.slice(1).map((l) => Number(l.split(',')[4]));
      expect(Math.max(...grid)).toBeCloseTo(caps.grid_peak_w, 0);

      const t = await runCli(['facility', FIXTURE, '--threads', '0'], {});
      expect(t.code, t.stderr).toBe(0);
      expect(t.stdout).toContain('caps + pause: grid (replica 1; power above is after the response)');
      expect(t.stdout).toMatch(/afternoon\s+[\d.]+\s+[\d.]+ \/ [\d.]+\s+100 %/);
      expect(t.stdout).toMatch(/60 %\s+\d+\.\d %/);
      expect(t.stdout).toContain('energy GWh');
    } finally {
      tmp.cleanup();
    }
  }, 120_000);

  it('names the field of a bad grid config and exits 2', async () => {
    const tmp = tempDir();
    try {
      const bad = join(tmp.dir, 'bad.yaml');
      const yaml = readFileSync(FIXTURE, 'utf8').replace('reduce_pct: 20', 'reduce_pct: 20, limit_mw: 1').replace('mwh: 0.02', 'mwh: 0.02, efficiency: 1.5');
      writeFileSync(bad, yaml);
      const r = await runCli(['facility', bad], {});
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('grid.events[0]');
      expect(r.stderr).toContain('exactly one of reduce_mw, reduce_pct or limit_mw');
      expect(r.stderr).toContain('grid.battery.efficiency');
    } finally {
      tmp.cleanup();
    }
  }, 60_000);
});
