import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { inline, parseGuide } from '../../src/renderer/lib/guide';
import { PAGE_HELP, PAGES } from '../../src/renderer/lib/routes';

const guide = parseGuide(readFileSync('docs/user-guide.md', 'utf8'));

describe('the user guide inside the app', () => {
  it('each page links to a section that exists in docs/user-guide.md', () => {
    const ids = new Set(guide.filter((b) => b.kind === 'h1' || b.kind === 'h2').map((b) => (b as { id: string }).id));
    for (const page of PAGES) {
      const help = PAGE_HELP[page];
      expect(ids, `${page} links to #${help.section}`).toContain(help.section);
      expect(help.hint.length).toBeGreaterThan(20);
    }
  });

  it('reads headings, paragraphs and lists with continuation lines, and inline code and bold', () => {
    const b = parseGuide('# T\n\n## 2. Design a sweep\nline one\nline two\n\n- item `a`\n  more\n- **b**\n');
    expect(b).toEqual([
      { kind: 'h1', text: 'T', id: 't' },
      { kind: 'h2', text: '2. Design a sweep', id: 'design-a-sweep' },
      { kind: 'p', text: 'line one line two' },
      { kind: 'ul', items: ['item `a` more', '**b**'] },
    ]);
    expect(inline('a `x` **y** z')).toEqual([
      { kind: 'text', text: 'a ' },
      { kind: 'code', text: 'x' },
      { kind: 'text', text: ' ' },
      { kind: 'bold', text: 'y' },
      { kind: 'text', text: ' z' },
    ]);
  });
});
