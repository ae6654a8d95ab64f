// UI live-trace benchmark (issue #6): 8 simulated GPUs sampled at 10 Hz for a simulated hour, pushed through the
// real LiveTraces component and live store in Chromium at a speed-up, as sample events shaped like the engine's.
// Reports time per update (event ingest and frame draw), dropped updates, and the renderer heap at start and end.
// Each window is measured for every path named in --paths, in the same run: `current` is the working tree's
// LiveTraces, `baseline` the same harness built against src/ of the git ref --baseline (default: main before the
// incremental live figure), so before and after come from one machine under one load.
//
//   npx tsx bench/ui-live.ts [--speedup 60] [--gpus 8] [--hz 10] [--minutes 60] [--windows 10,60]
//                            [--paths baseline,current] [--baseline c569f1f]
//
// Results: printed, and written to bench/ui-live.results.json.
import { execFileSync } from 'node:child_process';
import { createServer } from 'node:http';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync, existsSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { extname, join, normalize, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { build } from 'vite';
import react from '@vitejs/plugin-react';
import { chromium } from '@playwright/test';

const { values } = parseArgs({
  options: {
    speedup: { type: 'string', default: '60' },
    gpus: { type: 'string', default: '8' },
    hz: { type: 'string', default: '10' },
    minutes: { type: 'string', default: '60' },
    windows: { type: 'string', default: '10,60' },
    refresh: { type: 'string', default: '500' },
    'max-points': { type: 'string', default: '600' },
    batch: { type: 'string', default: '0.25' },
    paths: { type: 'string', default: 'baseline,current' },
    baseline: { type: 'string', default: 'c569f1f' },
    out: { type: 'string', default: 'bench/ui-live.results.json' },
  },
});
const PATHS = ['baseline', 'current'] as const;
type DrawPath = (typeof PATHS)[number];
const paths = String(values.paths).split(',').map((p) => p.trim());
for (const p of paths) if (!PATHS.includes(p as DrawPath)) throw new Error(`--paths: unknown path "${p}" (known: ${PATHS.join(', ')})`);
const num = (k: keyof typeof values) => Number(values[k]);
const root = resolve(import.meta.dirname, '..');

function pct(xs: number[], p: number): number {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}
const r2 = (x: number) => Math.round(x * 100) / 100;
const mb = (b: number) => Math.round((b / 1024 / 1024) * 10) / 10;

/**
 * A tree to build the harness from: the working tree itself, or src/ of git ref `ref` with this harness beside it
 * (and node_modules linked in), so both paths are driven and measured by the same harness code.
 */
function sourceTree(path: DrawPath, scratch: string): string {
  if (path === 'current') return root;
  const dir = join(scratch, 'baseline-src');
  mkdirSync(dir, { recursive: true });
  let tar: Buffer;
  try {
    tar = execFileSync('git', ['archive', String(values.baseline), 'src'], { cwd: root, maxBuffer: 1 << 30 });
  } catch (e) {
    throw new Error(`--baseline ${values.baseline}: git archive failed in ${root} (${(e as Error).message.split('\n')[0]})`, { cause: e });
  }
  execFileSync('tar', ['-x', '-C', dir], { input: tar });
  cpSync(join(root, 'bench', 'ui-live-harness'), join(dir, 'bench', 'ui-live-harness'), { recursive: true });
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
  return dir;
}

async function main(): Promise<void> {
  const scratch = mkdtempSync(join(tmpdir(), 'caplab-bench-ui-'));
  const outDir = join(scratch, 'www');
  for (const path of paths as DrawPath[]) {
    await build({
      root: join(sourceTree(path, scratch), 'bench', 'ui-live-harness'),
      base: './',
      logLevel: 'warn',
      plugins: [react()],
      build: { outDir: join(outDir, path), emptyOutDir: true, minify: true, chunkSizeWarningLimit: 20_000 },
    });
  }
  const baselineCommit = paths.includes('baseline') ? execFileSync('git', ['rev-parse', String(values.baseline)], { cwd: root, encoding: 'utf8' }).trim() : null;
  const currentCommit = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim();
  const dirty = execFileSync('git', ['status', '--porcelain', 'src', 'bench/ui-live-harness'], { cwd: root, encoding: 'utf8' }).trim() !== '';
  const server = createServer((req, res) => {
    const rel = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    const file = normalize(join(outDir, rel.endsWith('/') ? rel + 'index.html' : rel));
    if (!file.startsWith(outDir) || !existsSync(file)) return void res.writeHead(404).end();
    const type = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css' }[extname(file)] ?? 'application/octet-stream';
    res.writeHead(200, { 'Content-Type': type }).end(readFileSync(file));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  const browser = await chromium.launch({
    executablePath: existsSync('/usr/bin/chromium') ? '/usr/bin/chromium' : undefined,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-dev-shm-usage', '--disable-background-timer-throttling', '--disable-renderer-backgrounding'],
  });
  const results: Record<string, unknown>[] = [];
  try {
    const cases = String(values.windows).split(',').flatMap((w) => paths.map((path) => ({ windowMin: Number(w), path })));
    for (const { windowMin, path } of cases) {
      const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
      const cdp = await page.context().newCDPSession(page);
      await page.goto(`http://127.0.0.1:${port}/${path}/`);
      await page.waitForFunction(() => (globalThis as unknown as { __bench?: { ready: boolean } }).__bench?.ready === true);
      await page.evaluate(([w, r, m]) => (globalThis as unknown as { __bench: { configure(s: object): void } }).__bench.configure({ liveWindowMin: w, refreshMs: r, maxPoints: m }), [windowMin, num('refresh'), num('max-points')] as const);
      await page.waitForTimeout(500);
      await cdp.send('HeapProfiler.collectGarbage');
      const heapStart = (await cdp.send('Runtime.getHeapUsage')).usedSize;
      let heapPeak = heapStart;
      const poll = setInterval(() => {
        void cdp.send('Runtime.getHeapUsage').then((h) => (heapPeak = Math.max(heapPeak, h.usedSize))).catch(() => undefined);
      }, 2000);
      const opts = { gpus: num('gpus'), hz: num('hz'), simSeconds: num('minutes') * 60, speedup: num('speedup'), batchWallS: num('batch') };
      console.error(`ui-live: ${path}, window ${windowMin} min: feeding ${opts.gpus} GPUs x ${opts.hz} Hz x ${num('minutes')} simulated min at ${opts.speedup}x …`);
      const feed = (await page.evaluate((o) => (globalThis as unknown as { __bench: { feed(o: object): Promise<unknown> } }).__bench.feed(o), opts)) as { sentSamples: number; receivedSamples: number; events: number; sampleEvents: number; wallS: number };
      clearInterval(poll);
      const frames = (await page.evaluate(() => (globalThis as unknown as { __bench: { frames(): unknown } }).__bench.frames())) as { ms: number; buildMs?: number; points: number; coalesced: number; skippedTicks: number }[];
      const ingest = (await page.evaluate(() => (globalThis as unknown as { __bench: { ingest(): unknown } }).__bench.ingest())) as number[];
      const figureDraws = (await page.evaluate(() => (globalThis as unknown as { __bench: { draws(): unknown } }).__bench.draws())) as number;
      const heapBeforeGc = (await cdp.send('Runtime.getHeapUsage')).usedSize;
      await cdp.send('HeapProfiler.collectGarbage');
      const heapEnd = (await cdp.send('Runtime.getHeapUsage')).usedSize;
      const drawMs = frames.map((f) => f.ms);
      // Older code paths (a baseline) do not report the figure-building part.
      const buildMs = frames.flatMap((f) => (f.buildMs === undefined ? [] : [f.buildMs]));
      const late = frames.filter((f) => f.ms > num('refresh')).length;
      const r = {
        path,
        window_min: windowMin,
        gpus: opts.gpus,
        hz: opts.hz,
        simulated_minutes: num('minutes'),
        speedup: opts.speedup,
        wall_s: r2(feed.wallS),
        sample_events: feed.sampleEvents,
        all_events: feed.events,
        samples_sent: feed.sentSamples,
        samples_in_store: feed.receivedSamples,
        dropped_samples: feed.sentSamples - feed.receivedSamples,
        ingest_ms_p50: r2(pct(ingest, 50)),
        ingest_ms_p95: r2(pct(ingest, 95)),
        ingest_ms_max: r2(Math.max(...ingest)),
        frames: frames.length,
        draws: figureDraws,
        draw_ms_p50: r2(pct(drawMs, 50)),
        draw_ms_p95: r2(pct(drawMs, 95)),
        draw_ms_max: r2(Math.max(...drawMs)),
        build_ms_p50: buildMs.length ? r2(pct(buildMs, 50)) : null,
        build_ms_p95: buildMs.length ? r2(pct(buildMs, 95)) : null,
        frames_over_refresh: late,
        skipped_redraw_ticks: frames.at(-1)?.skippedTicks ?? 0,
        points_last_frame: frames.at(-1)?.points ?? 0,
        heap_start_mb: mb(heapStart),
        heap_peak_mb: mb(heapPeak),
        heap_end_before_gc_mb: mb(heapBeforeGc),
        heap_end_mb: mb(heapEnd),
      };
      results.push(r);
      console.error(JSON.stringify(r));
      await page.close();
    }
  } finally {
    await browser.close();
    server.close();
    rmSync(scratch, { recursive: true, force: true });
  }
  const doc = {
    bench: 'ui-live',
    date: new Date().toISOString(),
    machine: { cpus: cpus().length, cpu: cpus()[0]?.model ?? '?', node: process.version, chromium: browser.version(), load_avg_1m_at_end: Math.round(loadavg()[0]! * 100) / 100 },
    code: { baseline: baselineCommit, current: currentCommit, current_has_uncommitted_changes: dirty },
    settings: { refresh_ms: num('refresh'), max_points_per_trace: num('max-points'), event_batch_wall_s: num('batch') },
    notes:
      'ingest = JSON.parse of one engine-shaped event + live-store update; draw = building the min/max-decimated figure and drawing it ' +
      '(baseline: whole-window decimation + Plotly.react on SVG scatter; current: incremental decimation + 2D canvas). ' +
      'build_ms is the figure-building part of draw (null where the path does not report it). draws counts drawings of the figure ' +
      '(frames plus any redraws a resize sets off: Plotly afterplot events, or the canvas path\'s own count). ' +
      'A redraw tick that finds the previous draw still busy is skipped (its data is drawn by the next frame); dropped_samples counts samples that never reached the store.',
    results,
  };
  writeFileSync(resolve(root, String(values.out)), JSON.stringify(doc, null, 2) + '\n');
  console.table(results.map((r) => ({ path: r.path, window: `${r.window_min} min`, events: r.sample_events, 'ingest p95 ms': r.ingest_ms_p95, frames: r.frames, draws: r.draws, 'draw p50 ms': r.draw_ms_p50, 'draw p95 ms': r.draw_ms_p95, 'draw max': r.draw_ms_max, skipped: r.skipped_redraw_ticks, dropped: r.dropped_samples, 'heap start MB': r.heap_start_mb, 'heap end MB': r.heap_end_mb })));
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
