// Why the importers use a hand-written scanner: parse-only CPU time on the same nvidia-smi log for (a) the usual
// JavaScript way (split lines, split(','), Number(), Date.parse per row) and (b) CapLab's scanner (src/core/import).
// Usage: npx tsx bench/parser-choice.ts [rows]   (writes a temp log; prints CPU seconds and rows per CPU-second)
import { createReadStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { createParser } from '../src/core/import';
import { nvidiaSmiLog } from './gen-power-logs';

async function feed(file: string, enc: 'utf8' | 'latin1', push: (s: string) => void): Promise<number> {
  const c0 = process.cpuUsage();
  const dec = new StringDecoder(enc);
  for await (const chunk of createReadStream(file, { highWaterMark: 1 << 20 })) push(dec.write(chunk as Buffer));
  push(dec.end());
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / 1e6;
}

const rows = Number(process.argv[2] ?? 1_000_000);
const dir = mkdtempSync(join(tmpdir(), 'caplab-parser-choice-'));
try {
  const file = join(dir, 'log.csv');
  await nvidiaSmiLog(file, rows);
  let n = 0;
  let carry = '';
  let sum = 0;
  const naive = await feed(file, 'utf8', (s) => {
    const lines = (carry + s).split('\n');
    carry = lines.pop() ?? '';
    for (const l of lines) {
      const f = l.split(',').map((x) => x.trim());
      if (f[0] === 'timestamp') continue;
      sum += Date.parse(f[0]!.replace(/\//g, '-').replace(' ', 'T') + 'Z') + Number(f[5]) + Number(f[6]) + Number(f[9]);
      n++;
    }
  });
  let m = 0;
  const p = createParser('nvidia-smi', { file, zone: 'UTC', emit: (b) => (m += b.n) });
  const scanner = await feed(file, 'latin1', (s) => p.push(s));
  p.end();
  console.log(`split/Number/Date.parse: ${naive.toFixed(2)} CPU-s, ${(n / naive / 1e6).toFixed(2)} M rows per CPU-s (checksum ${sum > 0})`);
  console.log(`CapLab scanner:          ${scanner.toFixed(2)} CPU-s, ${(m / scanner / 1e6).toFixed(2)} M rows per CPU-s`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
