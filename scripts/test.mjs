#!/usr/bin/env node
// `npm test`: lint, type-check, unit + integration tests (vitest), then end-to-end tests in Chromium (Playwright).
// Ends with one summary line, "tests: N passed, N failed, N skipped", counted from both runners' JSON reports.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const reports = mkdtempSync(join(tmpdir(), 'caplab-test-reports-'));
const vitestJson = join(reports, 'vitest.json');
const playwrightJson = join(reports, 'playwright.json');

const steps = [
  ['lint', 'npx', ['eslint', '.']],
  ['typecheck', 'npm', ['run', '-s', 'typecheck']],
  ['unit + integration', 'npx', ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${vitestJson}`]],
  ['build renderer', 'npx', ['electron-vite', 'build']],
  ['e2e (Chromium)', 'npx', ['playwright', 'test', '--reporter=list,json']],
];

/** Counts from vitest's JSON report (jest-style totals). */
function vitestCounts() {
  if (!existsSync(vitestJson)) return null;
  const r = JSON.parse(readFileSync(vitestJson, 'utf8'));
  return { passed: r.numPassedTests, failed: r.numFailedTests, skipped: r.numPendingTests + (r.numTodoTests ?? 0) };
}

/** Counts from Playwright's JSON report. */
function playwrightCounts() {
  if (!existsSync(playwrightJson)) return null;
  const s = JSON.parse(readFileSync(playwrightJson, 'utf8')).stats;
  return { passed: s.expected + s.flaky, failed: s.unexpected, skipped: s.skipped };
}

const only = process.argv[2];
let status = 0;
for (const [name, cmd, args] of steps) {
  if (only && !name.startsWith(only)) continue;
  console.log(`\n=== ${name}: ${cmd} ${args.join(' ')}`);
  const started = Date.now();
  const env = { ...process.env, ELECTRON_SKIP_BINARY_DOWNLOAD: '1', PLAYWRIGHT_JSON_OUTPUT_NAME: playwrightJson };
  const r = spawnSync(cmd, args, { stdio: 'inherit', env });
  console.log(`=== ${name}: ${r.status === 0 ? 'ok' : `FAILED (exit ${r.status ?? r.signal})`} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  if (r.status !== 0) {
    status = r.status ?? 1;
    break;
  }
}
const counts = [vitestCounts(), playwrightCounts()].filter(Boolean);
rmSync(reports, { recursive: true, force: true });
if (counts.length) {
  const sum = (k) => counts.reduce((a, c) => a + c[k], 0);
  console.log(`\ntests: ${sum('passed')} passed, ${sum('failed')} failed, ${sum('skipped')} skipped`);
}
process.exit(status);
