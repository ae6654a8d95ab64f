import { createServer } from 'node:http';
import { hostname } from 'node:os';
import { CliError, defineCommand, numberOpt, stringOpt, untilStopSignal } from '../command';
import { backendOpt, backendOption, dbOption } from '../open-engine';
import { openLabBackend, startPolling } from '../../lab/standalone/exporter';
import { dbPath } from '../../lab/basics';
import { isLoopbackHost } from '../../host/server';
import { CapLabMetrics } from '../prometheus-metrics';

/** dcgm-exporter's default port, so a scrape config written for it needs no change. */
const DEFAULT_PORT = 9400;

export const exporterCommand = defineCommand({
  name: 'exporter',
  summary: 'Serve the GPUs\' samples to Prometheus (/metrics) with DCGM exporter names, plus CapLab\'s limit, run and phase',
  usage: 'exporter [--port N] [--interval MS] [--host H] [--backend B] [--db FILE]',
  options: { port: { type: 'string' }, interval: { type: 'string' }, host: { type: 'string' }, ...backendOption, ...dbOption },
  flags: {
    port: { value: 'N', text: 'TCP port of /metrics; 0 picks a free one.', default: '9400 (dcgm-exporter\'s)', example: '--port 9401' },
    interval: { value: 'MS', text: 'Sampling interval in milliseconds (50 to 600000).', default: '1000', example: '--interval 500' },
    host: { value: 'H', text: 'Address to bind; the endpoint is read-only and unauthenticated, as Prometheus exporters are.', default: '127.0.0.1', example: '--host 0.0.0.0' },
  },
  examples: ['caplab exporter', 'caplab exporter --backend nvml --port 9401 --interval 500'],
  async run(args, io) {
    const port = numberOpt(args, 'port') ?? DEFAULT_PORT;
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new CliError(`--port must be an integer 0-65535; got ${port}`);
    const interval = numberOpt(args, 'interval') ?? 1000;
    if (interval < 50 || interval > 600_000) throw new CliError(`--interval is in milliseconds, 50 to 600000; got ${interval}`);
    const host = stringOpt(args, 'host') ?? '127.0.0.1';
    // The backend itself, not an engine: the exporter only reads, beside sweeps of other processes (no lease, no
    // journal). No usable backend is a BackendError: 'unavailable', exit 4.
    const lab = await openLabBackend(backendOpt(args) ?? 'auto', { env: io.env });
    io.stderr.write(`caplab exporter: ${lab.reason}\n`);
    const metrics = new CapLabMetrics(hostname());
    let lastError = '';
    const poller = startPolling(lab.backend, metrics, interval, dbPath(stringOpt(args, 'db'), io.env), (e) => {
      if (e.message !== lastError) io.stderr.write(`caplab exporter: ${e.message}\n`);
      lastError = e.message;
    });
    await poller.ready;
    // Read-only and unauthenticated, as Prometheus exporters are: it can change nothing. Loopback unless --host.
    const server = createServer((req, res) => {
      const path = (req.url ?? '/').split('?')[0];
      if (req.method !== 'GET' || (path !== '/metrics' && path !== '/')) {
        res.writeHead(404).end('not found; metrics are at /metrics\n');
        return;
      }
      if (path === '/') {
        res.writeHead(200, { 'content-type': 'text/plain' }).end('CapLab exporter: /metrics\n');
        return;
      }
      metrics.text().then(
        (body) => res.writeHead(200, { 'content-type': metrics.contentType }).end(body),
        (e: Error) => res.writeHead(500).end(e.message),
      );
    });
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', (e: NodeJS.ErrnoException) => reject(e.code === 'EADDRINUSE' ? new CliError(`port ${port} on ${host} is in use; pick another with --port`, 1) : e));
        server.listen(port, host, resolve);
      });
    } catch (e) {
      // The poller's timer would otherwise keep the process running after the error.
      await poller.stop();
      await lab.backend.close();
      throw e;
    }
    const bound = (server.address() as { port: number }).port;
    if (!isLoopbackHost(host)) io.stderr.write(`caplab exporter: listening on ${host}: anyone who can reach it can read these GPU readings (nothing can be changed through it)\n`);
    io.stdout.write(`CapLab exporter at http://${host.includes(':') ? `[${host}]` : host}:${bound}/metrics (every ${interval} ms)\n`);
    await untilStopSignal();
    await new Promise<void>((r) => server.close(() => r()));
    await poller.stop();
    await lab.backend.close();
    return 0;
  },
});
