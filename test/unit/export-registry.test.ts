import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { exportFileKinds, exportFormatIds, exportItems, exportList, type ExportSubject } from '../../src/shared/exports';
import { ExportFormat, ExportRequest, WrittenFile } from '../../src/shared/export';
import { exportWriters } from '../../src/main/lab/exporters/formats';

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? sourceFiles(p) : /\.tsx?$/.test(n) ? [p] : [];
  });
}

const subjects: ExportSubject[] = ['sweep', 'compare', 'dataset'];

describe('export registry', () => {
  it('the contract’s formats, the written file kinds and the writers all come from the one list', () => {
    const ids = exportList.map((e) => e.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ExportFormat.options).toEqual(ids);
    expect(exportFormatIds).toEqual(ids);
    expect(Object.keys(exportWriters).sort()).toEqual([...ids].sort());
    for (const id of ids) expect(typeof exportWriters[id]).toBe('function');
    expect(WrittenFile.shape.kind.options).toEqual(exportFileKinds);
    expect([...exportFileKinds].sort()).toEqual([...new Set(exportList.map((e) => e.ext))].sort());
    for (const id of ids) expect(ExportRequest.safeParse({ sweep_id: 1, format: id }).success).toBe(true);
    expect(ExportRequest.safeParse({ sweep_id: 1, format: 'xlsx' }).success).toBe(false);
  });

  it('each subject’s menu is the formats labelled for it, in list order, every format offered somewhere', () => {
    for (const s of subjects) {
      const want = exportList.filter((e) => (e.labels as Record<string, string | undefined>)[s]).map((e) => e.id);
      expect(exportItems(s).map((i) => i.format)).toEqual(want);
      for (const i of exportItems(s)) expect(i.label.length).toBeGreaterThan(3);
    }
    expect(new Set(subjects.flatMap((s) => exportItems(s).map((i) => i.format)))).toEqual(new Set(exportFormatIds));
    // A format that refuses a subject says where to look instead, or nothing; never for a subject it applies to.
    for (const e of exportList) for (const s of Object.keys('instead' in e ? e.instead : {})) expect(Object.keys(e.labels)).not.toContain(s);
  });

  it('no file outside the list spells out the formats by hand, and the menu and dispatch name none', () => {
    const ids = exportFormatIds.map((s) => s.replace(/-/g, '\\-')).join('|');
    const list = new RegExp(`['"](?:${ids})['"]\\s*,\\s*['"](?:${ids})['"]`);
    const shared = join('shared', 'exports.ts');
    const offenders = sourceFiles(join(process.cwd(), 'src')).filter((f) => !f.endsWith(shared) && list.test(readFileSync(f, 'utf8')));
    expect(offenders).toEqual([]);
    const any = new RegExp(`['"](?:${ids})['"]`);
    for (const f of ['src/renderer/components/ExportMenu.tsx', 'src/main/lab/exporters/app-export.ts']) expect(any.test(readFileSync(join(process.cwd(), f), 'utf8')), f).toBe(false);
  });
});
