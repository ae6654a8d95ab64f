import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { stringify } from 'yaml';
import { runCli } from '../helpers/cli';
import { tempDir } from '../helpers/tmp';

const FIXTURE = 'test/fixtures/facility/small-site.yaml';

describe('caplab facility', () => {
  it('reports each scenario and target as JSON and writes NLR-format CSVs, replicas on worker threads', async () => {
    const tmp = tempDir();
    try {
      const out = join(tmp.dir, 'csv');
      const r = await runCli(['facility', FIXTURE, '--json', '--csv', out, '--threads', '2'], {});
      expect(r.stderr).not.toMatch(/Error/);
      expect(r.code).toBe(0);
      const j = JSON.parse(r.stdout);
      expect(j.scenarios.map((s: { name: string }) => s.name)).toEqual(['baseline', 'pue-1.4']);
      expect(j.levels).toHaveLength(2);
      for (const [i, l] of j.levels.entries()) {
        expect(l.target_utilization).toBe([0.3, 0.7][i]);
        expect(Math.abs(l.utilization - l.target_utilization)).toBeLessThan(0.02);
        expect(l.mean_w).toBeGreaterThan(64 * 420);
        expect(l.peak_w).toBeGreaterThan(l.mean_w);
        expect(l.replicas).toBe(3);
        // Replicas differ (a spread), and the plot series are left out of --json unless --series.
        expect(l.sd.mean_w).toBeGreaterThan(0);
        expect(l.series).toBeUndefined();
        expect(l.ldc_w).toHaveLength(101);
      }
      // Same jobs, PUE 1.4: IT identical, total 1.4x.
      const pue = j.scenarios[1].levels[0];
      expect(pue.mean_w).toBeCloseTo(j.levels[0].mean_w, 3);
      expect(pue.mean_total_w / pue.mean_w).toBeCloseTo(1.4, 6);
      // Cost from the hourly price CSV: between the flat 40 and the evening 100 per MWh.
      expect(j.levels[0].cost / j.levels[0].energy_total_mwh).toBeGreaterThan(40);
      expect(j.levels[0].cost / j.levels[0].energy_total_mwh).toBeLessThan(100);
      expect(j.levels[0].carbon_t).toBeCloseTo((j.levels[0].energy_total_mwh * 300) / 1000, 3);
      expect(readdirSync(out).sort()).toEqual(['baseline_30u_power.csv', 'baseline_70u_power.csv', 'pue-1.4_30u_power.csv', 'pue-1.4_70u_power.csv']);
      const lines = readFileSync(join(out, 'baseline_70u_power.csv'), 'utf8').trim().split('\n');
      expect(lines[0]).toBe('timestamp,power_W,utilization,total_power_W');
      expect(lines).toHaveLength(1 + (10 * 86400) / 300);
      expect(lines[1]).toMatch(/^2025-01-01 00:00:00,[\d.]+,[\d.]+,[\d.]+$/);
      const util = lines.slice(1).reduce((a, l) => a + Number(l.split(',')[2]), 0) / (lines.length - 1);
      expect(Math.abs(util - j.levels[1].utilization)).toBeLessThan(0.03);
      // The NLR facility-profile format: CapLab's own importer (auto-detected) reads it back, every row.
      const imp = await runCli(['import', join(out, 'baseline_70u_power.csv'), '--tz', 'UTC', '--json'], { CAPLAB_DB: join(tmp.dir, 'lab.db') });
      expect(imp.code, imp.stderr).toBe(0);
      const d = JSON.parse(imp.stdout);
      expect(d.dataset).toMatchObject({ format: 'facility-csv', samples: lines.length - 1 });
      expect(d.reports[0].warnings).toContain('column(s) not imported: total_power_W (a facility profile is power_W and utilization)');
    } finally {
      tmp.cleanup();
    }
  }, 180_000);

  it('carbon from an hourly grid-intensity CSV and cooling from an outdoor-temperature CSV, step by step', async () => {
    const tmp = tempDir();
    try {
      const fx = (f: string) => resolve('test/fixtures/facility', f);
      const site = {
        mode: 'training', name: 'csv site', seed: 5, start: '2025-01-01T00:00:00Z', horizon_days: 2, step_s: 300, replicas: 1, nodes: 64, idle_w: 420, rated_w: 3520, targets: [0.5],
        jobs: [{ name: 'ft', share: 1, nodes: { dist: 'choice', values: [1, 2, 4] }, duration_h: { dist: 'fixed', value: 1 }, profile: { csv: fx('profile.csv'), time_col: 't', power_col: 'node_W' } }],
        overheads: { cooling: { base_fraction: 0.12, per_degc: 0.01, ref_c: 18 }, temperature: { csv: fx('temperature.csv') } },
        tariff: { price_per_mwh: 50, carbon_csv: fx('carbon.csv') },
      };
      writeFileSync(join(tmp.dir, 'site.yaml'), stringify(site));
      const out = join(tmp.dir, 'csv');
      const r = await runCli(['facility', join(tmp.dir, 'site.yaml'), '--json', '--csv', out, '--threads', '0'], {});
      expect(r.code, r.stderr).toBe(0);
      const l = JSON.parse(r.stdout).levels[0];
      const hourly = (f: string) => new Map(readFileSync(fx(f), 'utf8').trim().split('\n').slice(1).map((line) => [line.slice(0, 13), Number(line.split(',')[1])] as const));
      const temp = hourly('temperature.csv');
      const carbon = hourly('carbon.csv');
      const rows = readFileSync(join(out, 'baseline_50u_power.csv'), 'utf8').trim().split('\n').slice(1).map((line) => line.split(','));
      expect(rows).toHaveLength((2 * 86400) / 300);
      let grams = 0;
      let warmest = 0;
      for (const [ts, it, , total] of rows) {
        const hour = `${ts!.slice(0, 10)}T${ts!.slice(11, 13)}`;
        // Total = IT x (1 + 0.12 + 1 %/degC above 18 degC) with the temperature of that hour.
        const ratio = 1.12 + 0.01 * Math.max(0, temp.get(hour)! - 18);
        expect(Number(total) / Number(it)).toBeCloseTo(ratio, 3);
        warmest = Math.max(warmest, ratio);
        grams += ((Number(total) * 300) / 3.6e6) * carbon.get(hour)!;
      }
      expect(warmest).toBeCloseTo(1.24, 6);
      // Carbon weighs each step's energy by that hour's intensity (not the mean intensity x energy).
      expect(l.carbon_t).toBeCloseTo(grams / 1e6, 3);
      expect(l.carbon_t / (l.energy_total_mwh * 1000) * 1e6).not.toBeCloseTo((100 * 8 + 450 * 12 + 300 * 4) / 24, 0);
      expect(l.cost).toBeCloseTo(l.energy_total_mwh * 50, 6);
    } finally {
      tmp.cleanup();
    }
  }, 120_000);

  it('writes the facility report as HTML and PDF (Chromium): the run\'s figures, charts per scenario and the config with its assumptions', async () => {
    const tmp = tempDir();
    try {
      const html = join(tmp.dir, 'site.html');
      const pdf = join(tmp.dir, 'site.pdf');
      const r = await runCli(['facility', FIXTURE, '--json', '--html', html, '--pdf', pdf, '--author', 'Grace Hopper', '--paper', 'letter', '--threads', '0'], {});
      expect(r.code, r.stderr).toBe(0);
      const j = JSON.parse(r.stdout);
      expect(j.written.map((f: { kind: string; path: string }) => [f.kind, f.path])).toEqual([
        ['html', html],
        ['pdf', pdf],
      ]);
      const doc = readFileSync(html, 'utf8');
      expect(doc).toContain('CapLab facility report');
      expect(doc).toContain('Grace Hopper');
      // Every scenario's table holds the numbers --json gives (4 significant digits, MW).
      for (const s of j.scenarios as { name: string; levels: { mean_w: number; peak_w: number; p99_w: number }[] }[]) {
        expect(doc).toContain(`Scenario ${s.name}`);
        for (const l of s.levels) for (const w of [l.mean_w, l.peak_w, l.p99_w]) expect(doc).toContain(String(Number((w / 1e6).toPrecision(4))));
      }
      // LDC and power series per scenario, each level's series; the scenarios side by side.
      expect(doc.match(/<svg[^>]*data-chart="facility-ldc"/g)).toHaveLength(2);
      expect(doc.match(/<svg[^>]*data-chart="facility-power"/g)).toHaveLength(4);
      expect(doc.match(/<svg[^>]*data-chart="facility-scenarios"/g)).toHaveLength(1);
      // The config as written, comments (the assumptions) included.
      expect(doc).toContain('# A small training site for the CLI tests');
      const text = execFileSync('pdftotext', ['-layout', pdf, '-'], { encoding: 'utf8' });
      expect(text).toContain('CapLab facility report');
      expect(text).toMatch(/Scenario pue-1\.4/);
      expect(execFileSync('pdfinfo', [pdf], { encoding: 'utf8' })).toMatch(/Page size:\s+612 x 792/);
      // A report path that cannot be written is refused before the simulation runs.
      const bad = await runCli(['facility', FIXTURE, '--html', join(tmp.dir, 'no-such-folder', 'x.html')], {});
      expect(bad.code).toBe(2);
      expect(bad.stderr).toMatch(/cannot write .*x\.html: folder .*no-such-folder does not exist/);
      const stray = await runCli(['facility', FIXTURE, '--author', 'x'], {});
      expect(stray.code).toBe(2);
      expect(stray.stderr).toContain('--author goes with --html FILE or --pdf FILE');
    } finally {
      tmp.cleanup();
    }
  }, 180_000);

  it('is deterministic: the same seed gives the same numbers, on threads or not', async () => {
    const a = await runCli(['facility', FIXTURE, '--json', '--scenario', 'baseline', '--replicas', '1', '--threads', '0'], {});
    const b = await runCli(['facility', FIXTURE, '--json', '--scenario', 'baseline', '--replicas', '1', '--threads', '1'], {});
    expect(a.code).toBe(0);
    const strip = (s: string) => JSON.parse(s).levels;
    expect(strip(a.stdout)).toEqual(strip(b.stdout));
  }, 180_000);

  it('bad input: exit code 2 and a message naming the field', async () => {
    const tmp = tempDir();
    try {
      const bad = join(tmp.dir, 'bad.yaml');
      writeFileSync(bad, readFileSync(FIXTURE, 'utf8').replace('targets: [0.3, 0.7]', 'targets: [0.3, 1.7]'));
      const env = { CAPLAB_DB: join(tmp.dir, 'none.db') };
      const r = await runCli(['facility', bad], env);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/facility config \S*bad\.yaml: targets\[1\]: utilisation is a fraction of nodes busy: at most 1 \(100 %\)/);
      // Found on a worker thread (the load search), reported the same way.
      const full = join(tmp.dir, 'full.yaml');
      writeFileSync(
        full,
        'mode: training\nhorizon_days: 3\nstep_s: 600\nnodes: 8\nidle_w: 400\nrated_w: 3520\ntargets: [1]\n' +
          'jobs: [{ name: big, share: 1, nodes: { dist: fixed, value: 8 }, duration_h: { dist: fixed, value: 24 }, profile: { builtin: stable-diffusion } }]\n',
      );
      const r3 = await runCli(['facility', full, '--threads', '1'], env);
      expect(r3.code).toBe(2);
      expect(r3.stderr).toMatch(/facility config \S*full\.yaml: targets: utilisation 100\.0 % is not reachable/);
      const r2 = await runCli(['facility', join(tmp.dir, 'missing.yaml')], env);
      expect(r2.code).toBe(2);
      expect(r2.stderr).toMatch(/facility config \S*missing\.yaml: cannot read it \(ENOENT\)/);
      // No lab database is needed or made: the engine ran on an empty in-memory one.
      expect(existsSync(join(tmp.dir, 'none.db'))).toBe(false);
    } finally {
      tmp.cleanup();
    }
  }, 60_000);

  it('a node profile from a dataset imported with caplab import (its automatic segment, the default database)', async () => {
    const tmp = tempDir();
    try {
      const env = { CAPLAB_DB: join(tmp.dir, 'lab.db'), CAPLAB_DATA_DIR: tmp.dir, CAPLAB_SIM_STATE_DIR: tmp.dir };
      const imp = await runCli(['import', 'test/fixtures/import/nvidia-smi-seed.csv', '--json'], env);
      expect(imp.code).toBe(0);
      const segment = JSON.parse(imp.stdout).dataset.segments[0] as { id: number };
      const site = (profile: Record<string, unknown>) => ({
        mode: 'training', seed: 3, horizon_days: 2, step_s: 60, nodes: 50, idle_w: 400, rated_w: 3520, targets: [0.5],
        jobs: [{ name: 'h100x2', share: 1, nodes: { dist: 'fixed', value: 2 }, duration_h: { dist: 'fixed', value: 2 }, profile: { ...profile, node_overhead_w: 500 } }],
      });
      writeFileSync(join(tmp.dir, 'site.yaml'), stringify(site({ segment: { segment_id: segment.id } })));
      const r = await runCli(['facility', join(tmp.dir, 'site.yaml'), '--json'], env);
      expect(r.stderr).not.toMatch(/Error/);
      expect(r.code).toBe(0);
      const l = JSON.parse(r.stdout).levels[0];
      // Busy nodes draw the two GPUs' ~1,215 W + 500 W, idle ones 400 W: the mean lies between.
      const busy = l.utilization * 50 * 1715;
      expect(l.mean_w).toBeGreaterThan(0.9 * (busy + (1 - l.utilization) * 50 * 400));
      expect(l.mean_w).toBeLessThan(1.1 * (busy + (1 - l.utilization) * 50 * 400));
      // --db names the lab database the engine reads profiles from (CAPLAB_DB pointing elsewhere is not used).
      const viaFlag = await runCli(['facility', join(tmp.dir, 'site.yaml'), '--json', '--db', env.CAPLAB_DB], { ...env, CAPLAB_DB: join(tmp.dir, 'other.db') });
      expect(viaFlag.code).toBe(0);
      expect(JSON.parse(viaFlag.stdout).levels[0].mean_w).toBe(l.mean_w);
      expect(existsSync(join(tmp.dir, 'other.db'))).toBe(false);
      writeFileSync(join(tmp.dir, 'bad.yaml'), stringify(site({ segment: { segment_id: 42 } })));
      const bad = await runCli(['facility', join(tmp.dir, 'bad.yaml')], env);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toMatch(/facility config \S*bad\.yaml: jobs\[0\]\.profile\.segment\.segment_id: no dataset segment 42/);
    } finally {
      tmp.cleanup();
    }
  }, 120_000);

  it('a node profile from an NLR aggregated profile (node-level power of 2 nodes, divided by its node count)', async () => {
    const tmp = tempDir();
    try {
      const env = { CAPLAB_DB: join(tmp.dir, 'lab.db'), CAPLAB_DATA_DIR: tmp.dir, CAPLAB_SIM_STATE_DIR: tmp.dir };
      const imp = await runCli(['import', 'test/fixtures/import/nlr-aggregated', '--json'], env);
      expect(imp.code).toBe(0);
      const segment = (JSON.parse(imp.stdout).dataset.segments as { id: number; label: string }[]).find((x) => x.label.includes('nodes=2'))!;
      const site = {
        mode: 'training', seed: 3, horizon_days: 2, step_s: 60, nodes: 50, idle_w: 400, rated_w: 3520, targets: [0.5],
        jobs: [{ name: 'llama', share: 1, nodes: { dist: 'fixed', value: 2 }, duration_h: { dist: 'fixed', value: 2 }, profile: { segment: { segment_id: segment.id }, nodes: 2, node_overhead_w: 0 } }],
      };
      writeFileSync(join(tmp.dir, 'site.yaml'), stringify(site));
      const r = await runCli(['facility', join(tmp.dir, 'site.yaml'), '--json'], env);
      expect(r.stderr).not.toMatch(/Error/);
      expect(r.code).toBe(0);
      const l = JSON.parse(r.stdout).levels[0];
      // The profile per node: 10 s at 420 W, 30 s at 2,800 W, 5 s at 420 W (the fixture's generator): ~2,007 W mean.
      const perNode = (15 * 420 + 30 * 2800) / 45;
      const expected = l.utilization * 50 * perNode + (1 - l.utilization) * 50 * 400;
      expect(l.mean_w).toBeGreaterThan(0.9 * expected);
      expect(l.mean_w).toBeLessThan(1.1 * expected);
    } finally {
      tmp.cleanup();
    }
  }, 120_000);
});
