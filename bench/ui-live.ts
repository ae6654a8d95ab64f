// UI live-trace benchmark (issue #6): 8 simulated GPUs sampled at 10 Hz for a simulated hour, pushed through the
// real LiveTraces component and live store in Chromium at a speed-up, as sample events shaped like the engine's.
// Reports time per update (event ingest and frame draw), dropped updates, and the renderer heap at start and end.
//
//   npx tsx bench/ui-live.ts [--speedup 60] [--gpus 8] [--hz 10] [--minutes 60] [--windows 10,60]
//
// Results: printed, and written to bench/ui-live.results.json.
import { createServer } from 'node:http';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
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
    out: { type: 'string', default: 'bench/ui-live.results.json' },
  },
});
const num = (k: keyof typeof values) => Number(values[k]);
const root = resolve(import.meta.dirname, '..');

function pct(xs: number[], p: number): number {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}
const r2 = (x: number) => Math.round(x * 100) / 100;
const mb = (b: number) => Math.round((b / 1024 / 1024) * 10) / 10;

async function main(): Promise<void> {
  const outDir = mkdtempSync(join(tmpdir(), 'caplab-bench-ui-'));
  await build({
    root: join(root, 'bench', 'ui-live-harness'),
    base: './',
    logLevel: 'warn',
    plugins: [react()],
    build: { outDir, emptyOutDir: true, minify: true, chunkSizeWarningLimit: 20_000 },
  });
  const server = createServer((req, res) => {
    const rel = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    const file = normalize(join(outDir, rel === '/' ? 'index.html' : rel));
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
    for (const windowMin of String(values.windows).split(',').map(Number)) {
      const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
      const cdp = await page.context().newCDPSession(page);
      await page.goto(`http://127.0.0.1:${port}/`);
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
      console.error(`ui-live: window ${windowMin} min: feeding ${opts.gpus} GPUs x ${opts.hz} Hz x ${num('minutes')} simulated min at ${opts.speedup}x …`);
      const feed = (await page.evaluate((o) => (globalThis as unknown as { __bench: { feed(o: object): Promise<unknown> } }).__bench.feed(o), opts)) as { sentSamples: number; receivedSamples: number; events: number; sampleEvents: number; wallS: number };
      clearInterval(poll);
      const frames = (await page.evaluate(() => (globalThis as unknown as { __bench: { frames(): unknown } }).__bench.frames())) as { ms: number; points: number; coalesced: number; skippedTicks: number }[];
      const ingest = (await page.evaluate(() => (globalThis as unknown as { __bench: { ingest(): unknown } }).__bench.ingest())) as number[];
      const heapBeforeGc = (await cdp.send('Runtime.getHeapUsage')).usedSize;
      await cdp.send('HeapProfiler.collectGarbage');
      const heapEnd = (await cdp.send('Runtime.getHeapUsage')).usedSize;
      const drawMs = frames.map((f) => f.ms);
      const late = frames.filter((f) => f.ms > num('refresh')).length;
      const r = {
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
        draw_ms_p50: r2(pct(drawMs, 50)),
        draw_ms_p95: r2(pct(drawMs, 95)),
        draw_ms_max: r2(Math.max(...drawMs)),
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
    rmSync(outDir, { recursive: true, force: true });
  }
  const doc = {
    bench: 'ui-live',
    date: new Date().toISOString(),
    machine: { cpus: cpus().length, cpu: cpus()[0]?.model ?? '?', node: process.version, chromium: browser.version(), load_avg_1m_at_end: Math.round(loadavg()[0]! * 100) / 100 },
    settings: { refresh_ms: num('refresh'), max_points_per_trace: num('max-points'), event_batch_wall_s: num('batch') },
    notes:
      'ingest = JSON.parse of one engine-shaped event + live-store update; draw = building the min/max-decimated figure + Plotly.react (SVG scatter). ' +
      'A redraw tick that finds the previous draw still busy is skipped (its data is drawn by the next frame); dropped_samples counts samples that never reached the store.',
    results,
  };
  writeFileSync(join(root, String(values.out)), JSON.stringify(doc, null, 2) + '\n');
  console.table(results.map((r) => ({ window: `${r.window_min} min`, events: r.sample_events, 'ingest p95 ms': r.ingest_ms_p95, frames: r.frames, 'draw p50 ms': r.draw_ms_p50, 'draw p95 ms': r.draw_ms_p95, 'draw max': r.draw_ms_max, skipped: r.skipped_redraw_ticks, dropped: r.dropped_samples, 'heap start MB': r.heap_start_mb, 'heap end MB': r.heap_end_mb })));
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
