import { closeSync, openSync, writeSync } from 'node:fs';
import { parseStart } from '../../../core/facility/calendar';

/**
 * Writes a facility series in the NLR facility-profile format (`timestamp,power_W,utilization`, power_W = IT power)
 * with total facility power (overheads included) as a fourth column, and with a grid config the grid draw after
 * storage and generation as a fifth (`grid_power_W`). Streamed in blocks: a year at 1 s is 31 M rows.
 */
export function writeProfileCsv(file: string, start: string, stepS: number, nodes: number, s: { it: Float64Array; total: Float64Array; busy: Int32Array; grid?: Float64Array }): void {
  const fd = openSync(file, 'w');
  try {
    const grid = s.grid;
    writeSync(fd, `timestamp,power_W,utilization,total_power_W${grid ? ',grid_power_W' : ''}\n`);
    const t0 = parseStart(start);
    let buf = '';
    for (let k = 0; k < s.it.length; k++) {
      const ts = new Date(t0 + k * stepS * 1000).toISOString().replace('T', ' ').replace(/\.000Z$/, '').replace('Z', '');
      buf += `${ts},${s.it[k]!.toFixed(1)},${(s.busy[k]! / nodes).toFixed(4)},${s.total[k]!.toFixed(1)}${grid ? `,${grid[k]!.toFixed(1)}` : ''}\n`;
      if (buf.length > 1 << 20) {
        writeSync(fd, buf);
        buf = '';
      }
    }
    writeSync(fd, buf);
  } finally {
    closeSync(fd);
  }
}
