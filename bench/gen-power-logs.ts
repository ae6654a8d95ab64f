// Writes the import benchmark's inputs: a 10-million-row nvidia-smi log (8 GPUs interleaved, the seed paper's
// query, csv,nounits, 100 ms) and a WattAMeter log of about the same size. Usage:
//   npx tsx bench/gen-power-logs.ts DIR [rows]
// Files go to a temp dir at bench time, never into the repository.
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';

const GPUS = 8;
const T0 = Date.UTC(2026, 10, 30, 8, 0, 0);

const pad = (n: number, w = 2) => String(n).padStart(w, '0');
function stamp(ms: number, sep: string, frac: number): string {
  const d = new Date(ms);
  const f = String(ms % 1000).padStart(3, '0') + (frac > 3 ? '370'.slice(0, frac - 3) : '');
  return `${d.getUTCFullYear()}${sep}${pad(d.getUTCMonth() + 1)}${sep}${pad(d.getUTCDate())}${sep === '/' ? ' ' : '_'}${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}.${f}`;
}

/** A load pattern with phases, so segments and decimated traces have something to show. */
function power(i: number, g: number): number {
  const phase = Math.floor(i / 6000) % 4;
  const base = phase === 0 ? 120 : phase === 1 ? 610 : phase === 2 ? 450 : 300;
  return base + ((i * 7919 + g * 104729) % 4000) / 100;
}

async function write(path: string, header: string, rows: number, line: (i: number) => string): Promise<void> {
  const out = createWriteStream(path, { highWaterMark: 1 << 20 });
  out.write(header);
  const CHUNK = 20_000;
  for (let i = 0; i < rows; ) {
    const parts: string[] = [];
    const end = Math.min(rows, i + CHUNK);
    for (; i < end; i++) parts.push(line(i));
    if (!out.write(parts.join(''))) await new Promise<void>((r) => out.once('drain', () => r()));
  }
  await new Promise<void>((resolve, reject) => out.end((e?: Error | null) => (e ? reject(e) : resolve())));
}

export async function nvidiaSmiLog(path: string, rows: number): Promise<void> {
  const header = 'timestamp, index, name, uuid, pci.bus_id, power.draw [W], clocks.current.sm [MHz], clocks.current.memory [MHz], utilization.gpu [%], temperature.gpu\n';
  let lastTick = -1;
  let ts = '';
  await write(path, header, rows, (i) => {
    const tick = Math.floor(i / GPUS);
    const g = i % GPUS;
    if (tick !== lastTick) {
      ts = stamp(T0 + tick * 100, '/', 3);
      lastTick = tick;
    }
    const p = power(tick, g);
    return `${ts}, ${g}, NVIDIA H100 80GB HBM3, GPU-2f0e6a4c-1b2d-4c6e-8f10-0a1b2c3d4e5${g}, 00000000:${(0x18 + g * 16).toString(16).toUpperCase().padStart(2, '0')}:00.0, ${p.toFixed(2)}, ${p > 200 ? 1980 : 345}, 2619, ${p > 200 ? 100 : 0}, ${40 + (p >> 5)}\n`;
  });
}

/** WattAMeter: one line per tick with 4 GPUs ([mW] [mJ] [C] [%gpu]) and 2 CPUs ([uJ]). */
export async function wattameterLog(path: string, rows: number): Promise<void> {
  const cols = ['timestamp', 'reading-time[ns]'];
  for (let g = 0; g < 4; g++) cols.push(`gpu-${g}[mW]`, `gpu-${g}[mJ]`, `gpu-${g}[C]`, `gpu-${g}[%gpu]`);
  cols.push('cpu-0[uJ]', 'cpu-1[uJ]');
  const energy = [0, 0, 0, 0];
  const cpu = [182736455120, 190283746110];
  await write(path, `# ${cols.join(' ')}\n`, rows, (i) => {
    const parts = [stamp(T0 + i * 100, '-', 6), String(21132644 + i * 100_000_000)];
    for (let g = 0; g < 4; g++) {
      const p = power(i, g);
      energy[g]! += p * 100;
      parts.push(String(Math.round(p * 1000)), String(Math.round(energy[g]!)), String(40 + (p >> 5)), p > 200 ? '100' : '0');
    }
    for (let c = 0; c < 2; c++) parts.push(String((cpu[c]! += 15_000_000)));
    return `  ${parts.join(' ')}\n`;
  });
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/^.*\//, ''))) {
  const dir = process.argv[2] ?? '.';
  const rows = Number(process.argv[3] ?? 10_000_000);
  await nvidiaSmiLog(join(dir, 'nvidia-smi.csv'), rows);
  await wattameterLog(join(dir, 'wattameter.log'), rows);
}
