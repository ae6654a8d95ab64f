// Node-to-node analysis of a cluster sweep: the same cap on different nodes and GPUs. Published measurements
// find several percent GPU-to-GPU variation at one cap; this shows the spread, flags outlier nodes and finds the
// best cap per node and for the fleet.
import type { NodeAnalysis, NodeCapStats, NodeGroup, Spread } from '../../shared/cluster';

export interface NodeRunInput {
  node: string;
  workload: string;
  cap_w: number;
  status: string;
  throughput: number | null;
  mean_power_w: number | null;
  efficiency: number | null;
  gpus: { index: number; uuid: string | null; power_w: number | null; energy_j: number | null }[];
}

/** |robust z| above this flags an outlier (Iglewicz and Hoaglin's modified z-score). */
const OUTLIER_Z = 3.5;
/** Deviations from the median smaller than this fraction are never outliers, however tight the others are. */
const OUTLIER_MIN_REL = 0.01;

const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

export function spread(values: (number | null)[]): Spread {
  const xs = values.filter((v): v is number => v !== null && Number.isFinite(v));
  const m = mean(xs);
  if (m === null) return { n: 0, mean: null, min: null, max: null, range_rel: null, cv: null };
  const min = Math.min(...xs);
  const max = Math.max(...xs);
  const sd = xs.length > 1 ? Math.sqrt(xs.reduce((a, x) => a + (x - m) ** 2, 0) / (xs.length - 1)) : null;
  return { n: xs.length, mean: m, min, max, range_rel: m !== 0 ? (max - min) / m : null, cv: sd !== null && m !== 0 ? sd / m : null };
}

/** Modified z-scores 0.6745 (x - median) / MAD; needs three or more values to mean anything. */
function outliers(entries: { node: string; value: number | null }[]): { node: string; value: number; z: number }[] {
  const xs = entries.filter((e): e is { node: string; value: number } => e.value !== null);
  if (xs.length < 3) return [];
  const med = median(xs.map((e) => e.value));
  const mad = median(xs.map((e) => Math.abs(e.value - med)));
  const out: { node: string; value: number; z: number }[] = [];
  for (const e of xs) {
    const dev = e.value - med;
    if (med !== 0 && Math.abs(dev / med) < OUTLIER_MIN_REL) continue;
    const z = mad > 0 ? (0.6745 * dev) / mad : dev === 0 ? 0 : Math.sign(dev) * Infinity;
    if (Math.abs(z) > OUTLIER_Z) out.push({ node: e.node, value: e.value, z: Number.isFinite(z) ? z : Math.sign(z) * 1e9 });
  }
  return out;
}

function capStats(cap: number, runs: NodeRunInput[], nodes: string[]): NodeCapStats {
  const perNode = nodes
    .map((node) => {
      const mine = runs.filter((r) => r.node === node);
      const avg = (pick: (r: NodeRunInput) => number | null) => mean(mine.map(pick).filter((v): v is number => v !== null));
      return { node, runs: mine.length, throughput: avg((r) => r.throughput), power_w: avg((r) => r.mean_power_w), efficiency: avg((r) => r.efficiency) };
    })
    .filter((n) => n.runs > 0);
  const gpuKey = new Map<string, { node: string; gpu: number; uuid: string | null; power: number[]; energy: number[] }>();
  for (const r of runs) {
    for (const g of r.gpus) {
      const key = `${r.node}\u0000${g.index}`;
      const e = gpuKey.get(key) ?? { node: r.node, gpu: g.index, uuid: g.uuid, power: [], energy: [] };
      if (g.power_w !== null) e.power.push(g.power_w);
      if (g.energy_j !== null) e.energy.push(g.energy_j);
      gpuKey.set(key, e);
    }
  }
  const perGpu = [...gpuKey.values()].map((g) => ({ node: g.node, gpu: g.gpu, uuid: g.uuid, power_w: mean(g.power), energy_j: mean(g.energy) }));
  const metrics = ['throughput', 'power_w', 'efficiency'] as const;
  return {
    cap_w: cap,
    per_node: perNode,
    per_gpu: perGpu,
    throughput: spread(perNode.map((n) => n.throughput)),
    power_w: spread(perNode.map((n) => n.power_w)),
    efficiency: spread(perNode.map((n) => n.efficiency)),
    gpu_power_w: spread(perGpu.map((g) => g.power_w)),
    outliers: metrics.flatMap((metric) => outliers(perNode.map((n) => ({ node: n.node, value: n[metric] }))).map((o) => ({ ...o, metric }))),
  };
}

function group(workload: string, runs: NodeRunInput[]): NodeGroup {
  const nodes = [...new Set(runs.map((r) => r.node))].sort();
  const caps = [...new Set(runs.map((r) => r.cap_w))].sort((a, b) => a - b);
  const stats = caps.map((c) => capStats(c, runs.filter((r) => r.cap_w === c), nodes));
  const bestPerNode = nodes.map((node) => {
    let best: { cap_w: number | null; efficiency: number | null } = { cap_w: null, efficiency: null };
    for (const s of stats) {
      const e = s.per_node.find((p) => p.node === node)?.efficiency ?? null;
      if (e !== null && (best.efficiency === null || e > best.efficiency)) best = { cap_w: s.cap_w, efficiency: e };
    }
    return { node, ...best };
  });
  let fleet: { cap_w: number | null; efficiency: number | null } = { cap_w: null, efficiency: null };
  for (const s of stats) {
    // Only caps every node ran: a cap that ran on the best node alone would win unfairly.
    if (s.efficiency.n !== nodes.length || s.efficiency.mean === null) continue;
    if (fleet.efficiency === null || s.efficiency.mean > fleet.efficiency) fleet = { cap_w: s.cap_w, efficiency: s.efficiency.mean };
  }
  return {
    workload,
    nodes,
    caps: stats,
    best_cap_per_node: bestPerNode,
    fleet_best_cap: fleet,
    outlier_nodes: [...new Set(stats.flatMap((s) => s.outliers.map((o) => o.node)))].sort(),
  };
}

/** Completed runs only; one group per workload. */
export function analyzeNodes(sweepId: number, runs: readonly NodeRunInput[]): NodeAnalysis {
  const done = runs.filter((r) => r.status === 'done');
  const workloads = [...new Set(done.map((r) => r.workload))];
  const groups = workloads.map((w) => group(w, done.filter((r) => r.workload === w)));
  const notes: string[] = [];
  if (runs.length > done.length) notes.push(`${runs.length - done.length} run(s) not done are left out`);
  for (const g of groups) {
    if (g.nodes.length < 3) notes.push(`${g.workload}: ${g.nodes.length} node(s); outliers need three or more nodes at a cap`);
    const shared = g.caps.filter((c) => c.per_node.length > 1).length;
    if (shared === 0 && g.nodes.length > 1) notes.push(`${g.workload}: no cap ran on more than one node (shard_by: caps); use shard_by: node to compare nodes at the same cap`);
  }
  return { schema: 'caplab.node-analysis/1', sweep_id: sweepId, groups, notes };
}
