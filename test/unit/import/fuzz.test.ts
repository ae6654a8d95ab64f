// Fuzz suite over every importer: mutated real-format fixtures (byte flips, truncation, garbage, repeated and
// dropped lines, other delimiters, unit swaps, random chunking). Every input must give a result or an
// ImportError naming the file — never another exception, never a hang — and a result must be self-consistent.
// A second pass per fixture puts out-of-range numbers, impossible readings, far-off years and emptied files in
// (issue #32): whatever comes out must be storable and physically possible.
// Short by default; CAPLAB_FUZZ_LONG=1 runs 10,000 inputs per format.
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseAll } from '../../../src/core/import/collect';
import { ImportError } from '../../../src/core/import';
import { metadataRowOf, parseNlrMetadata } from '../../../src/core/import/formats/nlr-metadata';
import type { DatasetDeviceKind, ImportFormat } from '../../../src/shared/dataset';
import type { Collected } from '../../../src/core/import/collect';
import { applyBad, badValue } from '../../helpers/fuzz-values';

const LONG = process.env.CAPLAB_FUZZ_LONG === '1';
const RUNS = LONG ? 10_000 : 150;

const FIXTURES: [ImportFormat, string, { fields?: string[]; interval_s?: number }][] = [
  ['nvidia-smi', 'nvidia-smi-seed.csv', {}],
  ['nvidia-smi', 'nvidia-smi-units.csv', {}],
  ['nvidia-smi', 'nvidia-smi-noheader.csv', { fields: ['timestamp', 'index', 'power.draw', 'clocks.sm', 'temperature.gpu'] }],
  ['hpcai-rocm-smi', 'rocm_smi_gpu_usage.csv', {}],
  ['wattameter', 'wattameter-node.log', {}],
  ['wattameter', 'wattameter-rapl.log', {}],
  ['dcgm-dmon', 'dcgmi-dmon.txt', { interval_s: 0.1 }],
  ['zeus', 'zeus-windows.csv', {}],
  ['codecarbon', 'codecarbon-emissions.csv', {}],
  ['prometheus', 'prometheus-dcgm.json', {}],
  ['facility-csv', 'facility-profile.csv', {}],
];

type Mutation =
  | { kind: 'flip'; at: number; byte: number }
  | { kind: 'truncate'; at: number }
  | { kind: 'insert'; at: number; text: string }
  | { kind: 'delete'; at: number; len: number }
  | { kind: 'dup-line'; line: number }
  | { kind: 'drop-line'; line: number }
  | { kind: 'swap-delim'; to: string }
  | { kind: 'unit'; from: string; to: string };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('flip' as const), at: fc.nat(), byte: fc.integer({ min: 0, max: 255 }) }),
  fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('insert' as const), at: fc.nat(), text: fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom('\n', ',', '[N/A]', '\u0000', '\r\n', '9999999999999999999999', '-1e309', 'NaN', ' W', '#', '"', '{', ']')) }),
  fc.record({ kind: fc.constant('delete' as const), at: fc.nat(), len: fc.integer({ min: 1, max: 40 }) }),
  fc.record({ kind: fc.constant('dup-line' as const), line: fc.nat() }),
  fc.record({ kind: fc.constant('drop-line' as const), line: fc.nat() }),
  fc.record({ kind: fc.constant('swap-delim' as const), to: fc.constantFrom(';', '\t', ' ', '|') }),
  fc.record({ kind: fc.constant('unit' as const), from: fc.constantFrom(' W', 'MHz', '[mW]', '[mJ]', 'MiB'), to: fc.constantFrom(' mW', 'kHz', '[W]', '[uJ]', 'GB', '') }),
);

function apply(text: string, ms: readonly Mutation[]): string {
  let s = text;
  for (const m of ms) {
    const at = s.length ? m.kind === 'flip' || m.kind === 'truncate' || m.kind === 'insert' || m.kind === 'delete' ? m.at % (s.length + 1) : 0 : 0;
    const lines = s.split('\n');
    switch (m.kind) {
      case 'flip':
        s = s.slice(0, at) + String.fromCharCode(m.byte) + s.slice(at + 1);
        break;
      case 'truncate':
        s = s.slice(0, at);
        break;
      case 'insert':
        s = s.slice(0, at) + m.text + s.slice(at);
        break;
      case 'delete':
        s = s.slice(0, at) + s.slice(at + m.len);
        break;
      case 'dup-line':
        lines.splice(m.line % lines.length, 0, lines[m.line % lines.length]!);
        s = lines.join('\n');
        break;
      case 'drop-line':
        lines.splice(m.line % lines.length, 1);
        s = lines.join('\n');
        break;
      case 'swap-delim':
        s = s.replaceAll(',', m.to);
        break;
      case 'unit':
        s = s.replaceAll(m.from, m.to);
        break;
    }
  }
  return s;
}

/** What the store can hold and what is physically possible, written out here rather than taken from the importer. */
const MAX_W: Record<DatasetDeviceKind, number> = { gpu: 10_000, cpu: 10_000, node: 1e7, facility: 1e10 };
function checkPlausible(r: Collected): void {
  for (const row of r.rows) {
    expect(Math.abs(row.t)).toBeLessThan(2 ** 51 / 1e6);
    const kind = r.report.devices[row.device]!.kind;
    for (const [ch, v] of Object.entries(row.values)) {
      expect(Number.isFinite(v), `${ch} ${v}`).toBe(true);
      if (ch.startsWith('power_') || ch === 'limit_w') expect(v >= 0 && v <= MAX_W[kind], `${ch} ${v}`).toBe(true);
      else if (ch === 'temp_c') expect(v > -273.15 && v <= 500, `${ch} ${v}`).toBe(true);
      else if (ch.startsWith('util_')) expect(v >= 0 && v <= 100, `${ch} ${v}`).toBe(true);
      else expect(v >= 0, `${ch} ${v}`).toBe(true);
    }
  }
}

/** Splits text at the given cut points (so lines straddle chunks). */
function chunk(text: string, cuts: readonly number[]): string[] {
  const at = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
  const out: string[] = [];
  let prev = 0;
  for (const c of at) {
    out.push(text.slice(prev, c));
    prev = c;
  }
  out.push(text.slice(prev));
  return out;
}

describe(`importer fuzz suite (${RUNS} mutated inputs per fixture${LONG ? ', long' : ''})`, () => {
  for (const [format, file, extra] of FIXTURES) {
    const text = readFileSync(`test/fixtures/import/${file}`, 'utf8');
    it(`${format}: ${file}`, () => {
      let results = 0;
      let errors = 0;
      fc.assert(
        fc.property(fc.array(mutation, { minLength: 1, maxLength: 4 }), fc.array(fc.nat(), { maxLength: 6 }), (ms, cuts) => {
          const input = apply(text, ms);
          const t0 = performance.now();
          try {
            const r = parseAll(format, chunk(input, cuts), { file: 'fuzz.in', zone: 'Europe/Berlin', ...extra });
            results++;
            expect(r.rows.length).toBe(r.report.rows_read);
            for (const row of r.rows) {
              expect(Number.isFinite(row.t)).toBe(true);
              expect(row.device).toBeGreaterThanOrEqual(0);
              expect(row.device).toBeLessThan(r.report.devices.length);
            }
            expect(r.report.devices.reduce((s, d) => s + d.rows, 0)).toBe(r.report.rows_read);
            checkPlausible(r);
          } catch (e) {
            if (!(e instanceof ImportError)) throw e;
            errors++;
            expect(e.message.startsWith('fuzz.in')).toBe(true);
          }
          // A hang shows as a slow input long before the test timeout.
          expect(performance.now() - t0).toBeLessThan(2_000);
        }),
        { numRuns: RUNS, seed: LONG ? undefined : 42 },
      );
      expect(results + errors).toBe(RUNS);
      expect(results).toBeGreaterThan(0);
    }, LONG ? 1_800_000 : 60_000);
  }

  for (const [format, file, extra] of FIXTURES) {
    const text = readFileSync(`test/fixtures/import/${file}`, 'utf8');
    it(`${format}: ${file}, out-of-range numbers, impossible readings, far-off years, emptied`, () => {
      const seen = { results: 0, errors: 0, empty: 0, skipped: 0 };
      fc.assert(
        fc.property(fc.array(badValue, { minLength: 1, maxLength: 3 }), fc.array(fc.nat(), { maxLength: 4 }), (ms, cuts) => {
          const input = applyBad(text, ms);
          try {
            const r = parseAll(format, chunk(input, cuts), { file: 'fuzz.in', zone: 'UTC', ...extra });
            seen.results++;
            if (r.report.rows_read === 0) seen.empty++;
            if (r.report.rows_skipped > 0) seen.skipped++;
            expect(r.rows.length).toBe(r.report.rows_read);
            checkPlausible(r);
          } catch (e) {
            if (!(e instanceof ImportError)) throw e;
            seen.errors++;
            expect(e.message.startsWith('fuzz.in')).toBe(true);
          }
        }),
        { numRuns: RUNS, seed: LONG ? undefined : 42 },
      );
      expect(seen.results + seen.errors).toBe(RUNS);
      // Each class shows up: refusals, readings skipped as impossible, and files left with no reading.
      expect(seen.errors).toBeGreaterThan(0);
      expect(seen.skipped + seen.empty).toBeGreaterThan(0);
      if (LONG) console.log(`${format} ${file} bad values: ${JSON.stringify(seen)}`);
    }, LONG ? 1_800_000 : 60_000);
  }

  it('nlr-parquet: metadata.csv beside the results', () => {
    const text = readFileSync('test/fixtures/import/nlr-aggregated/llama2-70b-lora/metadata.csv', 'utf8') + '3,4\n';
    let results = 0;
    let errors = 0;
    fc.assert(
      fc.property(fc.array(mutation, { minLength: 1, maxLength: 4 }), (ms) => {
        try {
          const m = parseNlrMetadata(apply(text, ms), 'metadata.csv');
          results++;
          expect(m.rows.size).toBeGreaterThan(0);
          for (const n of m.rows.keys()) expect(metadataRowOf(m, String(n).padStart(6, '0'), 'metadata.csv').cells.every(([k]) => k !== m.file_column)).toBe(true);
        } catch (e) {
          if (!(e instanceof ImportError)) throw e;
          errors++;
          expect(e.message.startsWith('metadata.csv')).toBe(true);
        }
      }),
      { numRuns: RUNS, seed: LONG ? undefined : 42 },
    );
    expect(results + errors).toBe(RUNS);
    expect(results).toBeGreaterThan(0);
  }, LONG ? 1_800_000 : 60_000);
});
