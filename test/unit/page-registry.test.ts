import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pageList } from '../../src/shared/pages';
import { UI_COMMANDS } from '../../src/shared/ui-commands';
import { isIdParam, PAGE_TITLES, PAGES, parseHash } from '../../src/renderer/lib/routes';
import { commandForKey, SHORTCUTS } from '../../src/renderer/lib/keys';
import { sourceFiles } from '../helpers/source-files';

const key = (k: string) => ({ key: k, ctrlKey: false, metaKey: false, altKey: false, shiftKey: false, target: null });

describe('page registry', () => {
  it('routes, titles, nav commands and number keys all come from the one page list', () => {
    const ids = pageList.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(PAGES).toEqual(ids);
    expect(Object.keys(PAGE_TITLES)).toEqual(ids);
    expect(UI_COMMANDS.filter((c) => c.startsWith('nav:'))).toEqual(ids.map((id) => `nav:${id}`));
    ids.forEach((id, i) => {
      expect(parseHash(`#/${id}/7`)).toEqual({ page: id, param: '7' });
      if (i < 9) expect(commandForKey(key(String(i + 1)))).toBe(`nav:${id}`);
    });
    expect(SHORTCUTS.filter((s) => s.command.startsWith('nav:')).map((s) => s.label)).toEqual(pageList.slice(0, 9).map((p) => p.title));
  });

  it('a route parameter names a stored id only when it is digits; an empty one is no parameter', () => {
    expect(parseHash('#/results/')).toEqual({ page: 'results', param: null });
    expect(['12', '0'].map(isIdParam)).toEqual([true, true]);
    expect(['abc', '1.5', '-3', '12a', ' 12'].map(isIdParam)).toEqual([false, false, false, false, false]);
  });

  it('every page has its component, and the components name no other page', () => {
    const text = readFileSync(join(process.cwd(), 'src/renderer/pages/index.ts'), 'utf8');
    const body = text.slice(text.indexOf('pageComponents'));
    const keys = [...body.matchAll(/^\s+([a-z-]+): [A-Z]\w+Page,$/gm)].map((m) => m[1]);
    expect(keys.sort()).toEqual(pageList.map((p) => p.id).sort());
  });

  it('no file outside the list spells out the pages or their nav commands by hand', () => {
    const ids = pageList.map((p) => p.id).join('|');
    const list = new RegExp(`['"](?:nav:)?(?:${ids})['"]\\s*,\\s*['"](?:nav:)?(?:${ids})['"]`);
    const nav = new RegExp(`['"]nav:(?:${ids})['"]`);
    const offenders = sourceFiles(join(process.cwd(), 'src')).filter((f) => !f.endsWith(join('shared', 'pages.ts')) && (list.test(readFileSync(f, 'utf8')) || nav.test(readFileSync(f, 'utf8'))));
    expect(offenders).toEqual([]);
  });
});
