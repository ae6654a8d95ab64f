import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importerList, importFormatIds } from '../../../src/shared/importers';
import { ImportFormat } from '../../../src/shared/dataset';
import { methods } from '../../../src/shared/api';
import { importerModules } from '../../../src/core/import/formats';
import { detectWith } from '../../../src/core/import/detect';
import { createParser, detectFormat, ImportError } from '../../../src/core/import';
import type { FormatModule } from '../../../src/core/import/format-module';
import { importCommand } from '../../../src/main/cli/commands/import';
import { listsByHand, quotedNames } from '../../helpers/source-files';

const fx = (name: string) => readFileSync(join('test/fixtures/import', name), 'latin1').slice(0, 64 * 1024);
const modules = Object.values(importerModules) as FormatModule[];

/** Real fixture heads (and small documents for the JSON rules), with the format each must be detected as. */
const heads: [string, string, string | null][] = [
  ['nvidia-smi-seed.csv', fx('nvidia-smi-seed.csv'), 'nvidia-smi'],
  ['nvidia-smi-units.csv', fx('nvidia-smi-units.csv'), 'nvidia-smi'],
  ['nvidia-smi-noheader.csv', fx('nvidia-smi-noheader.csv'), 'nvidia-smi'],
  ['gpu_power.csv', fx('hpcai-tree/vit_l16/300Watts/gpu_power.csv'), 'nvidia-smi'],
  // The AMD sampler's header is nvidia-smi-like (`timestamp,index,pci.bus_id,power.draw [W],...`) and its file name
  // matches nvidia-smi's `gpu*.csv` rule; nvidia-smi's own logs, also written without blanks, stay nvidia-smi's.
  ['rocm_smi_gpu_usage.csv', fx('rocm_smi_gpu_usage.csv'), 'hpcai-rocm-smi'],
  ['gpu_usage.csv', 'timestamp,index,pci.bus_id,power.draw [W],clocks.gr [MHz],clocks.mem [MHz],utilization.gpu [%],temperature.gpu\n2026/11/30 09:00:00.013,0,00000000:18:00.0,412.34,1980,2619,100,61\n', 'nvidia-smi'],
  ['wattameter-node.log', fx('wattameter-node.log'), 'wattameter'],
  ['wattameter-rapl.log', fx('wattameter-rapl.log'), 'wattameter'],
  ['dcgmi-dmon.txt', fx('dcgmi-dmon.txt'), 'dcgm-dmon'],
  ['zeus-windows.csv', fx('zeus-windows.csv'), 'zeus'],
  ['codecarbon-emissions.csv', fx('codecarbon-emissions.csv'), 'codecarbon'],
  ['facility-profile.csv', fx('facility-profile.csv'), 'facility-csv'],
  ['prometheus-dcgm.json', fx('prometheus-dcgm.json'), 'prometheus'],
  ['000001.parquet', fx('nlr-aggregated/llama2-70b-lora/results/000001.parquet'), 'nlr-parquet'],
  ['sweep.json', '{"schema":"caplab.export/1","sources":{"status":"success"}}', 'caplab-json'],
  ['old.json', '{"format":"caplab-sweep","runs":[]}', 'caplab-json'],
  ['query.json', '{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"job":"caplab"}}]}}', 'prometheus'],
  // A Parquet file not named so, and JSON that is no known document, are nothing (text rules never see them).
  ['gpu.csv', `PAR1\u0000a,b\n${fx('nvidia-smi-seed.csv')}`, null],
  ['nvidia-smi.csv', '{"a": 1,\n"b": 2}', null],
  ['x.bin', '\u0000\u0001binary', null],
];

/** The formats with a rule that matches a head, each with the priority of its matching rule, first to last. */
function matches(head: string, name: string): { format: string; priority: number }[] {
  // Each rule alone (the other modules kept without rules, so `#` headers are read as with all of them).
  return modules
    .flatMap((m) => m.detect.map((r) => ({ m, r })))
    .filter(({ m, r }) => detectWith(modules.map((x) => ({ ...x, detect: x === m ? [r] : [] })), head, name) === m.format)
    .map(({ m, r }) => ({ format: m.format as string, priority: r.priority }))
    .sort((a, b) => a.priority - b.priority);
}

describe('importer registry', () => {
  it('the contract’s formats, the modules and the CLI’s --format all come from the one list', () => {
    const ids = importerList.map((i) => i.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ImportFormat.options).toEqual(ids);
    expect(importFormatIds).toEqual(ids);
    expect(Object.keys(importerModules).sort()).toEqual([...ids].sort());
    for (const id of ids) {
      const m = importerModules[id];
      expect(m.format).toBe(id);
      expect(m.detect.length).toBeGreaterThan(0);
      if (m.reader.kind === 'stream') expect(typeof createParser(id, { file: 'f', zone: 'UTC', emit: () => {} }).push).toBe('function');
      else expect(() => createParser(id, { file: 'f', zone: 'UTC', emit: () => {} })).toThrow(ImportError);
    }
    for (const l of importerList) expect(l.label.length).toBeGreaterThan(3);
    // The app's import (HTTP and IPC) takes every format and no other.
    const input = methods.importDataset.input;
    for (const id of ids) expect(input.safeParse({ import_id: 'i', paths: ['x'], format: id }).success).toBe(true);
    expect(input.safeParse({ import_id: 'i', paths: ['x'], format: 'xlsx' }).success).toBe(false);
    expect(importCommand.usage).toContain(`formats: ${ids.join(', ')};`);
  });

  it('no file outside the list spells out the formats by hand, and detection and dispatch name none', () => {
    expect(listsByHand(importFormatIds, join('shared', 'importers.ts'))).toEqual([]);
    const any = quotedNames(importFormatIds);
    for (const f of [
      'src/core/import/detect.ts',
      'src/core/import/index.ts',
      'src/main/lab/datasets/importer.ts',
      'src/main/lab/datasets/nlr-parquet.ts',
      'src/main/lab/datasets/files.ts',
      'src/main/lab/datasets/parse-protocol.ts',
      'src/main/cli/commands/import.ts',
      'src/renderer/pages/datasets/ImportDrop.tsx',
    ])
      expect(any.test(readFileSync(join(process.cwd(), f), 'utf8')), f).toBe(false);
    // The drop zone's words are the list's labels, not a copy of them.
    const drop = readFileSync(join(process.cwd(), 'src/renderer/pages/datasets/ImportDrop.tsx'), 'utf8');
    expect(drop).toContain('importerList.map((i) => i.label)');
    for (const l of importerList) expect(drop, l.label).not.toContain(l.label);
  });

  it.each(heads)('%s: detected as the first rule in priority order that matches it says', (name, head, want) => {
    expect(detectFormat(head, name)).toBe(want);
    const m = matches(head, name);
    expect(m[0]?.format ?? null).toBe(want);
  });

  it('priorities decide the order: they are unique per content kind, the list’s order does not matter, and a broad rule yields to narrower ones', () => {
    const rules = modules.flatMap((m) => m.detect.map((r) => `${r.content}:${r.priority}`));
    expect(new Set(rules).size).toBe(rules.length);
    // Reversed and rotated lists detect the same.
    for (const order of [[...modules].reverse(), [...modules.slice(4), ...modules.slice(0, 4)]])
      for (const [name, head, want] of heads) expect(detectWith(order, head, name), name).toBe(want);
    // These heads match more than one format's rules: the order is what picks the right one.
    const overlapping = heads.filter(([name, head]) => matches(head, name).length > 1).map(([name]) => name);
    expect(overlapping).toEqual(expect.arrayContaining(['codecarbon-emissions.csv', 'facility-profile.csv', 'rocm_smi_gpu_usage.csv', 'sweep.json', 'query.json']));
    // nvidia-smi's header rule, moved first, would take CodeCarbon's log: the priority is what prevents it.
    const smi = importerModules['nvidia-smi'];
    const eager = { ...smi, detect: smi.detect.map((r) => ({ ...r, priority: 1 })) } as FormatModule;
    const head = fx('codecarbon-emissions.csv');
    expect(detectWith(modules.map((m) => (m === smi ? eager : m)), head, 'codecarbon-emissions.csv')).toBe('nvidia-smi');
    expect(detectWith(modules, head, 'codecarbon-emissions.csv')).toBe('codecarbon');
  });
});
