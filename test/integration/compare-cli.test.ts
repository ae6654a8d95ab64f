import { afterAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { Engine } from '../../src/main/lab/engine';
import { runCli } from '../helpers/cli';
import { tempDir } from '../helpers/tmp';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

describe('caplab compare', () => {
  it('aligns an H100 and an H200 sweep cap by cap, relative to the first; an imported dataset compares beside a sweep', { timeout: 180_000 }, async () => {
    const env = { CAPLAB_SIM_STATE_DIR: join(tmp.dir, 'sim'), CAPLAB_DATA_DIR: tmp.dir, CAPLAB_DB: join(tmp.dir, 'lab.db') };
    const engine = await Engine.open({ dbPath: env.CAPLAB_DB, env: { ...process.env, ...env } });
    const ids: number[] = [];
    try {
      for (const preset of ['h100-sxm', 'h200']) {
        const sweep = await engine.beginSweep({
          backend: 'sim',
          workloads: [{ id: 'vit_l_16' }],
          caps: [300, 500],
          repetitions: 2,
          warmup: { seconds: 15 },
          window: { seconds: 15 },
          cooldown_s: 0,
          sim: { speedup: 60, devices: [preset] },
        });
        expect(await sweep.done).toBe('done');
        ids.push(sweep.sweepId);
      }
    } finally {
      await engine.close();
    }
    const r = await runCli(['compare', String(ids[0]), String(ids[1]), '--json'], env);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const c = JSON.parse(r.stdout);
    expect(c.workload).toBe('vit_l_16');
    expect(c.sweeps.map((s: { device_model: string }) => s.device_model)).toEqual([expect.stringMatching(/H100/), expect.stringMatching(/H200/)]);
    expect(c.rows.map((row: { cap_w: number }) => row.cap_w)).toEqual([300, 500]);
    for (const row of c.rows) {
      expect(row.entries[0].rel_efficiency).toBe(0);
      expect(row.entries[1].rel_efficiency).not.toBeNull();
    }
    // The simulated H200 is faster at 500 W than the H100 (more memory bandwidth), so more work per joule there.
    expect(c.rows[1].entries[1].rel_throughput).toBeGreaterThan(0);

    const bad = await runCli(['compare', String(ids[0])], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('give at least two sweep ids');

    // An imported dataset (hpc-ai-perf-bench per-cap logs of ViT-L/16 on an H100) beside the recorded H100 sweep.
    const imp = await runCli(['import', 'test/fixtures/import/hpcai-tree', '--tz', 'UTC', '--json'], env);
    expect(imp.code).toBe(0);
    const datasetId = JSON.parse(imp.stdout).dataset.id as number;
    const mixed = await runCli(['compare', String(ids[0]), '--dataset', String(datasetId), '--json'], env);
    expect(mixed.code, mixed.stderr).toBe(0);
    const m = JSON.parse(mixed.stdout);
    expect(m.sweeps.map((s: { label: string }) => s.label)).toEqual([`#${ids[0]} ${c.sweeps[0].device_model}`, expect.stringMatching(new RegExp(`^dataset ${datasetId} .*H100`))]);
    expect(m.rows.map((row: { cap_w: number }) => row.cap_w)).toEqual([300, 500]);
    // The dataset's figures are those `caplab analyze --dataset` gives for its per-cap segments.
    const a = JSON.parse((await runCli(['analyze', '--dataset', String(datasetId), '--json'], env)).stdout);
    const eff = a.sweep.groups[0].caps.map((cap: { efficiency: { mean: number } }) => cap.efficiency.mean);
    expect(m.rows.map((row: { entries: { efficiency: number }[] }) => row.entries[1]!.efficiency)).toEqual(eff);
    // Workload ids differ between the sweep's catalogue and the log tree's folder name: said, not hidden.
    expect(m.notes).toContain('different workloads compared: vit_l_16, vit_l16');
    const none = await runCli(['compare', String(ids[0]), '--dataset', '99'], env);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/no dataset 99/);
  });
});
