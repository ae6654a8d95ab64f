import type { CliCommand } from '../command';

/**
 * Every `caplab` subcommand, in --help order: one line per command module. Modules load on demand, so a command
 * (the simulated workload in particular, started once per run) pays only for its own imports.
 */
export const commandLoaders: Record<string, () => Promise<CliCommand>> = {
  devices: () => import('./devices').then((m) => m.devicesCommand),
  doctor: () => import('./doctor').then((m) => m.doctorCommand),
  sweep: () => import('./sweep').then((m) => m.sweepCommand),
  tune: () => import('./tune').then((m) => m.tuneCommand),
  runs: () => import('./runs').then((m) => m.runsCommand),
  samples: () => import('./samples').then((m) => m.samplesCommand),
  'restore-caps': () => import('./restore-caps').then((m) => m.restoreCapsCommand),
  analyze: () => import('./analyze').then((m) => m.analyzeCommand),
  energy: () => import('./energy').then((m) => m.energyCommand),
  compare: () => import('./compare').then((m) => m.compareCommand),
  cluster: () => import('./cluster').then((m) => m.clusterCommand),
  exporter: () => import('./exporter').then((m) => m.exporterCommand),
  report: () => import('./report').then((m) => m.reportCommand),
  export: () => import('./export').then((m) => m.exportCommand),
  facility: () => import('./facility').then((m) => m.facilityCommand),
  import: () => import('./import').then((m) => m.importCommand),
  datasets: () => import('./datasets').then((m) => m.datasetsCommand),
  serve: () => import('./serve').then((m) => m.serveCommand),
  throughput: () => import('./throughput').then((m) => m.throughputCommand),
  workloads: () => import('./workloads').then((m) => m.workloadsCommand),
  'sim-workload': () => import('./sim-workload').then((m) => m.simWorkloadCommand),
};
