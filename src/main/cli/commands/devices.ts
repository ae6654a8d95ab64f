import { listCpuPackages, openLabBackend } from '../../lab/standalone/devices';
import { backendUsage } from '../../../shared/backends';
import { defineCommand, printJson } from '../command';
import { backendOpt, backendOption, jsonOption } from '../open-engine';
import { fixed, table } from '../format';

export const devicesCommand = defineCommand({
  name: 'devices',
  summary: 'List GPUs (and CPU packages) with their power limits and sensor facts',
  usage: `devices [--backend ${backendUsage}] [--json]`,
  options: { ...backendOption, ...jsonOption },
  examples: ['caplab devices', 'caplab devices --backend sim --json'],
  async run(args, io) {
    const lab = await openLabBackend(backendOpt(args) ?? 'auto', { env: io.env });
    try {
      const cpus = await listCpuPackages(io.env);
      const devices = [...(await lab.backend.listDevices()), ...cpus.devices];
      io.stderr.write(`caplab: backend ${lab.backend.name}: ${lab.reason}\n`);
      if (cpus.reason) io.stderr.write(`caplab: CPU power (RAPL): ${cpus.reason}\n`);
      if (args.values.json) {
        printJson(io, devices);
        return 0;
      }
      io.stdout.write(
        table(
          ['#', 'name', 'kind', 'limit W', 'min W', 'max W', 'default W', 'power sensor', 'energy counter', 'update ms'],
          devices.map((d) => [
            d.index,
            d.simulated && !/simulated/i.test(d.name) ? `${d.name} [simulated]` : d.name,
            d.kind,
            fixed(d.limit_w, 0),
            fixed(d.min_limit_w, 0),
            fixed(d.max_limit_w, 0),
            fixed(d.default_limit_w, 0),
            d.sensors.power_kinds.join('/') || null,
            d.sensors.energy_counter ? d.sensors.energy_counter_check : 'absent',
            fixed(d.sensors.update_period_ms, 0),
          ]),
        ) + '\n',
      );
      return 0;
    } finally {
      await lab.backend.close();
    }
  },
});
