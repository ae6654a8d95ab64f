// The derived figures of a run, from its measured facts: the one definition every face shows (`caplab runs`,
// `caplab sweep --json`, `caplab analyze`, the host API and every page).
import type { EnergyResult, NodeEnergy } from '../../shared/analysis';
import { nodeEnergy } from './energy';

export interface RunFacts {
  /** Length of the measurement window, s; null: no usable window. */
  duration_s: number | null;
  /** Work units done in the window over all GPUs. */
  units_in_window: number | null;
  gpus: number;
  /** Energy over the window per GPU and per CPU package (null energy: not measured). */
  gpu: readonly Pick<EnergyResult, 'energy_j'>[];
  cpu: readonly Pick<EnergyResult, 'energy_j'>[];
  overhead_w: number;
  use_measured_cpu: boolean;
}

export interface RunFigures {
  node: NodeEnergy | null;
  /** Work units per second per GPU. */
  throughput: number | null;
  gpu_energy_j: number | null;
  /** Mean power per GPU, W. */
  mean_power_w: number | null;
  /** Node energy / duration, W. */
  node_power_w: number | null;
  /** Work units per joule of node energy (GPUs + measured CPU, else GPUs + overhead). */
  efficiency: number | null;
  energy_per_unit_j: number | null;
}

const asEnergy = (e: Pick<EnergyResult, 'energy_j'>) => ({ energy_j: e.energy_j }) as EnergyResult;

export function runFigures(f: RunFacts): RunFigures {
  const d = f.duration_s !== null && f.duration_s > 0 ? f.duration_s : null;
  const node = d !== null ? nodeEnergy(f.gpu.map(asEnergy), f.cpu.map(asEnergy), f.overhead_w, d, f.use_measured_cpu) : null;
  const units = f.units_in_window;
  const gpu_j = node?.gpu_j ?? null;
  return {
    node,
    throughput: units !== null && d !== null ? units / d / f.gpus : null,
    gpu_energy_j: gpu_j,
    mean_power_w: gpu_j !== null && d !== null ? gpu_j / d / f.gpus : null,
    node_power_w: node?.energy_j != null && d !== null ? node.energy_j / d : null,
    efficiency: units !== null && node?.energy_j ? units / node.energy_j : null,
    energy_per_unit_j: units && node?.energy_j != null ? node.energy_j / units : null,
  };
}
