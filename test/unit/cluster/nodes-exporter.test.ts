import { describe, expect, it } from 'vitest';
import { analyzeNodes, type NodeRunInput } from '../../../src/core/analysis/nodes';
import { CapLabMetrics } from '../../../src/main/cli/prometheus-metrics';
import type { DeviceInfo, Sample } from '../../../src/shared/device';

function run(node: string, cap: number, efficiency: number, rep = 1): NodeRunInput {
  const power = cap * 0.9;
  return { node, workload: 'w', cap_w: cap, status: 'done', throughput: efficiency * (power + 100), mean_power_w: power, efficiency, gpus: [{ index: 0, uuid: `${node}-0`, power_w: power + rep, energy_j: power * 30 }] };
}

describe('analyzeNodes', () => {
  // Five nodes at two caps; n5 is 10 % less efficient than the rest, which agree within 1 %.
  const eff: Record<string, [number, number]> = { n1: [1.0, 0.95], n2: [1.005, 0.952], n3: [0.998, 0.949], n4: [1.002, 0.951], n5: [0.9, 0.85] };
  const runs = Object.entries(eff).flatMap(([n, [a, b]]) => [run(n, 300, a), run(n, 400, b)]);

  it('shows the spread across nodes, flags the outlier node and finds the best caps', () => {
    const g = analyzeNodes(1, runs).groups[0]!;
    expect(g.nodes).toEqual(['n1', 'n2', 'n3', 'n4', 'n5']);
    const c300 = g.caps.find((c) => c.cap_w === 300)!;
    expect(c300.efficiency.min).toBeCloseTo(0.9);
    expect(c300.efficiency.max).toBeCloseTo(1.005);
    expect(c300.efficiency.range_rel).toBeCloseTo((1.005 - 0.9) / c300.efficiency.mean!, 6);
    expect(c300.outliers.filter((o) => o.metric === 'efficiency').map((o) => o.node)).toEqual(['n5']);
    expect(g.outlier_nodes).toContain('n5');
    expect(g.outlier_nodes).not.toContain('n1');
    expect(g.best_cap_per_node.every((b) => b.cap_w === 300)).toBe(true);
    expect(g.fleet_best_cap.cap_w).toBe(300);
    expect(c300.per_gpu).toHaveLength(5);
  });

  it('the fleet\'s best cap counts only caps every node ran', () => {
    const extra = [...runs, run('n1', 250, 2.0)];
    const g = analyzeNodes(1, extra).groups[0]!;
    expect(g.best_cap_per_node.find((b) => b.node === 'n1')!.cap_w).toBe(250);
    expect(g.fleet_best_cap.cap_w).toBe(300);
  });

  it('two nodes: no outliers, and a note that says why', () => {
    const a = analyzeNodes(1, runs.filter((r) => r.node === 'n1' || r.node === 'n5'));
    expect(a.groups[0]!.outlier_nodes).toEqual([]);
    expect(a.notes.join(' ')).toMatch(/three or more nodes/);
  });
});

describe('CapLabMetrics', () => {
  const device: DeviceInfo = {
    id: 'sim:0', index: 0, backend: 'sim', kind: 'gpu', name: 'NVIDIA H100 80GB HBM3 (simulated)', vendor: 'sim', simulated: true, uuid: 'SIM-h100-sxm-0',
    pci_bus_id: null, driver: 'caplab-sim', vbios: null, limit_w: 400, enforced_limit_w: 400, min_limit_w: 200, max_limit_w: 700, default_limit_w: 700,
    sensors: { power_kinds: ['instant'], energy_counter: true, energy_counter_check: 'ok', update_period_ms: 100 },
  };
  const sample: Sample = {
    device_id: 'sim:0', t: 1, power_w: 387.5, power_kind: 'instant', power_avg_w: null, energy_mj: 123456, sm_clock_mhz: 1755, mem_clock_mhz: 2619,
    temp_c: 61, util_gpu: 100, util_mem: 40, mem_used_mb: 30000, limit_w: 400, throttle_reasons: 4,
  };

  it('writes DCGM names and labels, CapLab\'s limit, run and phase, in the Prometheus text format', async () => {
    const m = new CapLabMetrics('node7');
    m.update([device], [sample], { sweep_id: 3, run_id: 9, workload: 'vit_l_16', cap_w: 400, repetition: 1, phase: 'measure' });
    const text = await m.text();
    const labels = 'gpu="0",UUID="SIM-h100-sxm-0",device="nvidia0",modelName="NVIDIA H100 80GB HBM3 (simulated)",Hostname="node7",pci_bus_id=""';
    expect(text).toContain(`DCGM_FI_DEV_POWER_USAGE{${labels}} 387.5`);
    expect(text).toContain(`DCGM_FI_DEV_SM_CLOCK{${labels}} 1755`);
    expect(text).toContain(`DCGM_FI_DEV_GPU_TEMP{${labels}} 61`);
    expect(text).toContain('# TYPE DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION counter');
    expect(text).toContain(`DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{${labels}} 123456`);
    expect(text).toContain(`caplab_power_limit_watts{${labels}} 400`);
    expect(text).toContain('caplab_sweep_run_info{Hostname="node7",sweep_id="3",run_id="9",workload="vit_l_16",cap_w="400",repetition="1"} 1');
    expect(text).toContain('caplab_run_phase{Hostname="node7",phase="measure"} 1');
    expect(text).toContain('caplab_run_phase{Hostname="node7",phase="idle"} 0');
  });

  it('a later reading replaces the earlier one: ended runs and gone devices disappear', async () => {
    const m = new CapLabMetrics('node7');
    m.update([device], [sample], { sweep_id: 3, run_id: 9, workload: 'w', cap_w: 400, repetition: 1, phase: 'warmup' });
    m.update([], [], null);
    const text = await m.text();
    expect(text).not.toContain('DCGM_FI_DEV_POWER_USAGE{');
    expect(text).not.toContain('caplab_sweep_run_info{');
    expect(text).toContain('caplab_run_phase{Hostname="node7",phase="idle"} 1');
  });
});

describe('the Grafana dashboard (resources/grafana/caplab-gpus.json)', () => {
  it('queries only metrics the exporter writes, with its labels', async () => {
    const { readFileSync } = await import('node:fs');
    const dash = JSON.parse(readFileSync('resources/grafana/caplab-gpus.json', 'utf8')) as { panels: { targets: { expr: string }[] }[] };
    const m = new CapLabMetrics('h');
    const text = await m.text();
    const exported = new Set([...text.matchAll(/^# TYPE (\S+)/gm)].map((x) => x[1]));
    const used = dash.panels.flatMap((p) => p.targets.flatMap((t) => [...t.expr.matchAll(/\b(DCGM_FI_DEV_\w+|caplab_\w+)/g)].map((x) => x[1])));
    expect(used.length).toBeGreaterThan(5);
    for (const name of used) expect(exported).toContain(name);
  });
});

describe('part-to-part variation of simulated GPUs on cluster nodes', () => {
  it('is none without a node, and a fixed factor within +-4 % per node and GPU', async () => {
    const { partScale, nodePart, PART_SPREAD } = await import('../../../src/core/sim/variation');
    const { findPreset } = await import('../../../src/core/sim/presets');
    const h100 = findPreset('h100-sxm')!;
    expect(partScale(undefined, 0)).toBe(1);
    expect(nodePart(h100, undefined, 0)).toBe(h100);
    const scales = ['n1', 'n2', 'n3', 'node17'].flatMap((n) => [0, 1].map((i) => partScale(n, i)));
    for (const s of scales) expect(Math.abs(s - 1)).toBeLessThanOrEqual(PART_SPREAD);
    expect(new Set(scales).size).toBe(scales.length);
    expect(partScale('n1', 0)).toBe(partScale('n1', 0));
    expect(nodePart(h100, 'n1', 0).dynamic_scale).toBeCloseTo(h100.dynamic_scale * partScale('n1', 0), 12);
  });
});
