// Leases and the host journal are host-wide by design. Each test file gets its own lease namespace and journal
// folder, so test files running in parallel (and other people's test runs on this host) never see each other's.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

const dir = mkdtempSync(join(tmpdir(), 'caplab-leases-'));
process.env.CAPLAB_LEASE_DIR = dir;
process.env.CAPLAB_LEASE_NS = `t${process.pid}-${dir.slice(-6)}`;
afterAll(() => rmSync(dir, { recursive: true, force: true }));
