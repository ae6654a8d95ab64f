// Auto-detection from a file's first bytes (and name, for formats whose header is not distinctive): every format
// module's rules for the head's content kind, in ascending priority; the first match names the format.
import type { ImportFormat } from '../../shared/dataset';
import type { DetectHead, FormatModule, HeadContent } from './format-module';
import { importerModules } from './formats';

function contentOf(head: string): HeadContent {
  if (head.startsWith('PAR1')) return 'parquet';
  return head.trimStart().startsWith('{') ? 'json' : 'text';
}

/** Every format whose rules match a file's head, by the given modules, best (lowest priority) first. */
export function candidatesWith(modules: readonly FormatModule[], head: string, name: string): ImportFormat[] {
  const content = contentOf(head);
  const lines = head.split(/\r?\n/).map((l) => l.trim()).filter((l) => l.length > 0);
  const headers = modules.flatMap((m) => (m.commentHeader ? [m.commentHeader] : []));
  const first = lines.find((l) => !l.startsWith('#') || headers.some((h) => h.test(l))) ?? '';
  const h: DetectHead = { head, name, lines, first };
  const rules = modules.flatMap((m) => m.detect.filter((r) => r.content === content).map((r) => ({ ...r, format: m.format })));
  const found = rules.sort((a, b) => a.priority - b.priority).filter((r) => r.test(h)).map((r) => r.format);
  return [...new Set(found)];
}

/** The format of a file from its head by the given modules' rules, or null when none matches. */
export function detectWith(modules: readonly FormatModule[], head: string, name: string): ImportFormat | null {
  return candidatesWith(modules, head, name)[0] ?? null;
}

/** Every format that could read a file, from its head: what the import preview offers, auto-detection's pick first. */
export function detectCandidates(head: string, name: string): ImportFormat[] {
  return candidatesWith(Object.values(importerModules), head, name);
}

/** The format of a file from its head (first few KiB), or null with nothing recognised. */
export function detectFormat(head: string, name: string): ImportFormat | null {
  return detectWith(Object.values(importerModules), head, name);
}
