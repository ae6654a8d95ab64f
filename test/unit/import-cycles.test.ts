// No import cycles in src/, between files or between feature folders: the graph is read from the real sources.
// Edges are the static imports and re-exports, `import type` included (a type-only cycle still ties two modules
// together). A dynamic `import()` is left out: src/main/cli/commands/index.ts loads each command lazily so that
// `caplab --help` does not load the engine, and a lazy load runs after both sides have finished loading.
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, extname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/tmp';

type Graph = Map<string, Set<string>>;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(p);
    return /\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts') ? [p] : [];
  });
}

/** The file a relative specifier names, as the bundler resolves it; null for an asset (`../docs/guide.md?raw`). */
function resolveImport(from: string, spec: string): string | null {
  const path = spec.replace(/\?.*$/, '');
  if (!['', '.ts', '.tsx', '.js'].includes(extname(path))) return null;
  const base = resolve(dirname(from), path);
  for (const c of [base, base.replace(/\.js$/, '.ts'), `${base}.ts`, `${base}.tsx`, join(base, 'index.ts'), join(base, 'index.tsx')]) {
    if (existsSync(c) && statSync(c).isFile()) return c;
  }
  throw new Error(`${from}: import '${spec}' names no file (tried .ts, .tsx, index.ts)`);
}

/** File -> the files it imports statically, paths relative to `root`. */
function importGraph(root: string): Graph {
  const g: Graph = new Map();
  for (const file of sourceFiles(join(root, 'src'))) {
    const sf = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false);
    const to = new Set<string>();
    // Top-level statements only: that is where import and export-from live; import() calls are expressions.
    for (const s of sf.statements) {
      const spec =
        (ts.isImportDeclaration(s) || ts.isExportDeclaration(s)) && s.moduleSpecifier && ts.isStringLiteral(s.moduleSpecifier)
          ? s.moduleSpecifier.text
          : ts.isImportEqualsDeclaration(s) && ts.isExternalModuleReference(s.moduleReference) && ts.isStringLiteral(s.moduleReference.expression)
            ? s.moduleReference.expression.text
            : null;
      if (!spec?.startsWith('.')) continue;
      const target = resolveImport(file, spec);
      if (target) to.add(relative(root, target));
    }
    g.set(relative(root, file), to);
  }
  return g;
}

/** Where each layer's features start: a feature is the first folder below one of these; a file directly in one stands alone. */
const LAYER_ROOTS = ['src/shared', 'src/core', 'src/main/lab', 'src/main/cli', 'src/main/host', 'src/main/electron', 'src/preload', 'src/renderer'];

function featureOf(file: string): string {
  const layer = LAYER_ROOTS.filter((r) => file.startsWith(`${r}/`)).sort((a, b) => b.length - a.length)[0];
  if (!layer) return file;
  const rest = file.slice(layer.length + 1).split('/');
  return rest.length === 1 ? file : `${layer}/${rest[0]}/`;
}

/** The graph between features: an edge where a file of one imports a file of another. */
function featureGraph(files: Graph): Graph {
  const g: Graph = new Map();
  for (const [from, tos] of files) {
    const a = featureOf(from);
    if (!g.has(a)) g.set(a, new Set());
    for (const to of tos) if (featureOf(to) !== a) g.get(a)!.add(featureOf(to));
  }
  return g;
}

/** One cycle per strongly connected component (Tarjan), each as `a -> b -> a`, the shortest through its first node. */
function cycles(g: Graph): string[] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[] = [];
  const visit = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of g.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const scc = new Set<string>();
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      scc.add(w);
    } while (w !== v);
    if (scc.size > 1 || g.get(v)?.has(v)) found.push(shortestLoop(g, [...scc].sort()[0]!, scc).join(' -> '));
  };
  for (const v of [...g.keys()].sort()) if (!index.has(v)) visit(v);
  return found.sort();
}

function shortestLoop(g: Graph, start: string, within: Set<string>): string[] {
  const prev = new Map<string, string>();
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    const v = queue[i]!;
    for (const w of g.get(v) ?? []) {
      if (!within.has(w)) continue;
      if (w === start) {
        const path = [start];
        for (let at: string | undefined = v; at !== undefined && at !== start; at = prev.get(at)) path.splice(1, 0, at);
        return [...path, start];
      }
      if (!prev.has(w)) {
        prev.set(w, v);
        queue.push(w);
      }
    }
  }
  return [start, start];
}

describe('import cycles', () => {
  const files = importGraph(process.cwd());

  it('reads the whole of src', () => {
    expect(files.size).toBeGreaterThan(300);
    expect(files.get('src/main/cli/main.ts')).toContain('src/main/cli/commands/index.ts');
  });

  it('has none between files', () => {
    expect(cycles(files)).toEqual([]);
  });

  it('has none between feature folders (src/main/lab/sweep/, src/renderer/state/, ...)', () => {
    expect(cycles(featureGraph(files))).toEqual([]);
  });

  it('names a planted cycle: type-only between files, through a re-export between features; dynamic import() is no edge', () => {
    const tmp = tempDir();
    try {
      const put = (path: string, text: string) => {
        mkdirSync(dirname(join(tmp.dir, path)), { recursive: true });
        writeFileSync(join(tmp.dir, path), text);
      };
      put('src/core/a/one.ts', "import type { Two } from './two';\nexport type One = { two: Two };\n");
      put('src/core/a/two.ts', "import type { One } from './one';\nexport type Two = { one?: One };\n");
      put('src/main/lab/x/index.ts', "export { y } from '../y/y';\nexport const x = 1;\n");
      put('src/main/lab/y/y.ts', "import { z } from '../x/z';\nexport const y = z;\n");
      put('src/main/lab/x/z.ts', 'export const z = 2;\n');
      put('src/main/cli/lazy.ts', "export const load = () => import('./back');\n");
      put('src/main/cli/back.ts', "import { load } from './lazy';\nexport const again = load;\n");
      const g = importGraph(tmp.dir);
      expect(cycles(g)).toEqual(['src/core/a/one.ts -> src/core/a/two.ts -> src/core/a/one.ts']);
      expect(cycles(featureGraph(g))).toEqual(['src/main/lab/x/ -> src/main/lab/y/ -> src/main/lab/x/']);
    } finally {
      tmp.cleanup();
    }
  });
});
