import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { hostname, networkInterfaces } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CliError, defineCommand, numberOpt, stringOpt, untilStopSignal, type CliIO } from '../command';
import { backendOption, dbOption, describeRestores, openEngine } from '../open-engine';
import { isLoopbackHost, startServer } from '../../host/server';
import { dataDir, readPlanFile, resourcesDir } from '../../lab';
import { attachMetrics, type HostMetrics } from '../serve-metrics';
import type { EventPayload } from '../../../shared/api';

/** The repository (or installed package) root: the nearest folder above this file with a package.json and the CLI. */
function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 8; i++) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'bin', 'caplab.mjs'))) return dir;
    dir = dirname(dir);
  }
  return process.cwd();
}

/** The built renderer; builds it first when running from a source checkout where it is missing. */
function ensureRenderer(io: CliIO, opts: { build?: boolean } = {}): string {
  const fromEnv = io.env.CAPLAB_STATIC_DIR;
  if (fromEnv) {
    if (!existsSync(join(fromEnv, 'index.html'))) throw new CliError(`CAPLAB_STATIC_DIR=${fromEnv} has no index.html`);
    return resolve(fromEnv);
  }
  const root = packageRoot();
  const dir = join(root, 'out', 'renderer');
  if (existsSync(join(dir, 'index.html'))) return dir;
  const canBuild = existsSync(join(root, 'electron.vite.config.ts')) && existsSync(join(root, 'src', 'renderer', 'index.html'));
  if (!canBuild || opts.build === false) {
    throw new CliError(`the user interface is not built (${dir} is missing); run \`npx electron-vite build\` in ${root}, or start with --api-only`, 1);
  }
  io.stderr.write('caplab serve: building the user interface (npx electron-vite build)…\n');
  const r = spawnSync('npx', ['electron-vite', 'build'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'], env: io.env, shell: process.platform === 'win32' });
  if (r.status !== 0 || !existsSync(join(dir, 'index.html'))) {
    throw new CliError(`building the user interface failed (exit ${r.status ?? r.signal}); run \`npx electron-vite build\` in ${root} to see why`, 1);
  }
  return dir;
}

function localNames(): string[] {
  const out = [hostname().toLowerCase()];
  for (const list of Object.values(networkInterfaces())) {
    for (const a of list ?? []) out.push(a.family === 'IPv6' ? `[${a.address}]` : a.address);
  }
  return out;
}

/**
 * CAPLAB_TOKEN: a fixed access token (a Prometheus scrape needs one that survives restarts), else a random one.
 * It travels as a bearer header and as a WebSocket subprotocol, so it must be an HTTP token (RFC 9110 tchars).
 */
function fixedToken(env: NodeJS.ProcessEnv): string | undefined {
  const t = env.CAPLAB_TOKEN;
  if (!t) return undefined;
  if (t.length < 16 || !/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/.test(t)) {
    throw new CliError('CAPLAB_TOKEN must be at least 16 characters of letters, digits and !#$%&\'*+.^_`|~- (no spaces or commas); unset it for a random token');
  }
  return t;
}

/** CAPLAB_MAX_UPLOAD_BYTES: a positive whole number of bytes, or unset (the host's default). */
function uploadLimit(env: NodeJS.ProcessEnv): number | undefined {
  const text = env.CAPLAB_MAX_UPLOAD_BYTES;
  if (!text) return undefined;
  const n = Number(text);
  // A value that is not a number would silently lift the limit (every comparison with NaN is false).
  if (!Number.isSafeInteger(n) || n < 1) throw new CliError(`CAPLAB_MAX_UPLOAD_BYTES must be a positive whole number of bytes; got "${text}"`);
  return n;
}

export const serveCommand = defineCommand({
  name: 'serve',
  summary: 'Serve the CapLab user interface and API to a browser (127.0.0.1, token required)',
  usage: 'serve [--port N] [--host H] [--db FILE] [--backend B] [--demo] [--api-only] [--metrics] [--interval MS]',
  options: {
    port: { type: 'string' },
    host: { type: 'string' },
    ...dbOption,
    ...backendOption,
    demo: { type: 'boolean' },
    'api-only': { type: 'boolean' },
    metrics: { type: 'boolean' },
    interval: { type: 'string' },
  },
  flags: {
    port: { value: 'N', text: 'TCP port; 0 picks a free one.', default: '0', example: '--port 8080' },
    host: { value: 'H', text: 'Address to bind. Anything but 127.0.0.1 exposes the lab to the network (a warning is printed; the token is still required).', default: '127.0.0.1', example: '--host 127.0.0.1' },
    demo: { text: 'A fresh database gets the demo sweep on a simulated H100, run live (implies --backend sim unless given).', default: 'off' },
    'api-only': { text: 'Serve only the API (no user interface files).', default: 'off' },
    metrics: { text: 'Add a Prometheus /metrics endpoint with the GPUs\' samples (token required, as a bearer header).', default: 'off' },
    interval: { value: 'MS', text: 'With --metrics: sampling interval in milliseconds (50 to 600000).', default: '1000', example: '--interval 500' },
  },
  examples: ['caplab serve', 'caplab serve --demo --port 8080', 'caplab serve --db ./lab.db --backend nvml'],
  async run(args, io) {
    const port = numberOpt(args, 'port') ?? 0;
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new CliError(`--port must be an integer 0-65535 (0 picks a free port); got ${port}`);
    const hostFlag = stringOpt(args, 'host');
    const host = hostFlag ?? '127.0.0.1';
    // --demo: the simulated backend (labelled "simulated" everywhere) unless --backend says otherwise.
    if (args.values.demo && !stringOpt(args, 'backend')) args.values.backend = 'sim';
    if (args.values.interval !== undefined && !args.values.metrics) throw new CliError('--interval is the sampling interval of --metrics: give --metrics with it');
    const interval = numberOpt(args, 'interval') ?? 1000;
    if (!(interval >= 50 && interval <= 600_000)) throw new CliError(`--interval is in milliseconds, 50 to 600000; got ${interval}`);
    const maxUploadBytes = uploadLimit(io.env);
    const token = fixedToken(io.env);
    const staticDir = args.values['api-only'] ? null : ensureRenderer(io);
    // Every flag is checked before the engine opens (and may restore limits).
    const engine = await openEngine(args, io, { restoreOnOpen: true });
    let server;
    let hostMetrics: HostMetrics | null = null;
    if (args.values.metrics) {
      hostMetrics = attachMetrics(engine, interval, (e) => io.stderr.write(`caplab serve: metrics: ${e.message}\n`));
      await hostMetrics.ready;
    }
    try {
      server = await startServer({
        engine,
        host,
        port,
        staticDir,
        token,
        allowNonLoopback: hostFlag !== undefined,
        allowedHosts: isLoopbackHost(host) ? [] : localNames(),
        metrics: hostMetrics ? { contentType: hostMetrics.metrics.contentType, text: () => hostMetrics!.metrics.text() } : undefined,
        uploadDir: join(dataDir(io.env), 'uploads'),
        maxUploadBytes,
      });
    } catch (e) {
      hostMetrics?.stop();
      await engine.close();
      const err = e as NodeJS.ErrnoException;
      if (err.code === 'EADDRINUSE') throw new CliError(`port ${port} on ${host} is in use; pick another with --port (0 = any free port)`, 1);
      if (err.code === 'EADDRNOTAVAIL') throw new CliError(`cannot bind to ${host}: no such local address`, 1);
      throw e;
    }
    if (!isLoopbackHost(host)) {
      io.stderr.write(
        `caplab serve: WARNING: listening on ${host}, not only on this machine. Anyone who can reach it and has the token can start sweeps and change GPU power limits.\n` +
          'caplab serve: WARNING: this is plain HTTP: the token and everything else travel in cleartext over the network.\n' +
          `caplab serve: prefer the default (127.0.0.1) with an SSH tunnel: ssh -L ${server.port}:127.0.0.1:${server.port} <this host>\n`,
      );
    }
    if (args.values.demo) {
      io.stderr.write('caplab serve: demo mode: simulated GPUs (labelled "simulated"), no hardware is touched.\n');
      // Demo data: a fresh database gets the demo sweep, run live, so every page has something to show.
      if ((await engine.listSweeps({})).length === 0) {
        const plan = readPlanFile(join(resourcesDir(io.env), 'plans', 'demo-sim.yaml'));
        const { sweep_id } = await engine.startSweep({ plan });
        io.stderr.write(`caplab serve: demo data: sweep ${sweep_id} "${plan.name}" is running (about half a minute); watch it in the Run console.\n`);
      }
    }
    io.stdout.write(`CapLab is serving at ${server.url}\n`);
    if (hostMetrics) io.stderr.write(`caplab serve: Prometheus metrics at ${server.origin}/metrics (Authorization: Bearer <the token>)\n`);
    io.stderr.write('caplab serve: open the URL above (it carries the access token); Ctrl+C stops and restores any changed power limits.\n');

    await untilStopSignal();
    io.stderr.write('caplab serve: stopping; cancelling this host\'s sweeps and restoring their limits…\n');
    // Its own sweeps restore their limits as they end; a sweep of another process (a CLI sweep) is not touched.
    const finished: EventPayload<'sweep.finished'>[] = [];
    engine.subscribe((name, payload) => {
      if (name === 'sweep.finished') finished.push(payload);
    });
    await engine.cancelAll();
    await server.close();
    hostMetrics?.stop();
    await engine.close();
    const restored = finished.flatMap((f) => f.restored);
    for (const line of describeRestores(restored)) io.stderr.write(`caplab serve: ${line}\n`);
    return 0;
  },
});
