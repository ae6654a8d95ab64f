import { dbPath, runDoctor } from '../../lab';
import { backendUsage } from '../../../shared/backends';
import { defineCommand, printJson, stringOpt } from '../command';
import { table } from '../format';
import { backendOpt, backendOption, dbOption, jsonOption } from '../open-engine';
import { COMMON, backendHelp } from '../flag-docs';

export const doctorCommand = defineCommand({
  name: 'doctor',
  summary: 'What this machine offers CapLab: GPU backends, permission to set limits, energy counter, RAPL, Slurm, Chromium, disk',
  usage: `doctor [--backend ${backendUsage}] [--db FILE] [--json]`,
  options: { ...backendOption, ...dbOption, ...jsonOption },
  flags: {
    backend: { value: 'NAME', text: `Every backend is probed anyway; this one is the backend whose devices the energy-counter and power-limit checks look at. ${backendHelp()}`, default: 'auto', example: '--backend nvml' },
    db: { value: 'FILE', text: 'The lab database whose file and folder are checked (writable, free space); it is not opened or created.', default: COMMON.db.default, example: '--db ./lab.db' },
  },
  examples: ['caplab doctor', 'caplab doctor --json', 'caplab doctor --backend nvml --db /scratch/lab.db'],
  async run(args, io) {
    const report = await runDoctor({ env: io.env, dbFile: dbPath(stringOpt(args, 'db'), io.env), choice: backendOpt(args) });
    if (args.values.json) {
      printJson(io, report);
      return 0;
    }
    io.stdout.write(table(['check', 'status', 'detail'], report.checks.map((c) => [c.id, c.status, c.detail])) + '\n\n');
    const s = report.summary;
    io.stdout.write(`${s.ok} ok, ${s.warning} warning${s.warning === 1 ? '' : 's'}, ${s.unavailable} unavailable, in ${(report.wall_ms / 1000).toFixed(1)} s (each probe within ${report.timeout_ms / 1000} s; nothing was changed)\n`);
    return 0;
  },
});
