#!/usr/bin/env node
// `npm test`: lint, type-check, unit + integration tests (vitest), then end-to-end tests in Chromium (Playwright).
// Ends with one summary line, "tests: N passed, N failed, N skipped", counted from both runners' JSON reports.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const reports = mkdtempSync(join(tmpdir(), 'caplab-test-reports-'));
const vitestJson = join(reports, 'vitest.json');
const playwrightJson = join(reports, 'playwright.json');

// Each group's steps run side by side (lint, type-check and the renderer build each use about one core), the groups
// one after another; the first failing group ends the run.
const groups = [
  [
    ['lint', 'npx', ['eslint', '.']],
    ['typecheck', 'npm', ['run', '-s', 'typecheck']],
    ['build renderer', 'npx', ['electron-vite', 'build']],
  ],
  [['unit + integration', 'npx', ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${vitestJson}`]]],
  [['e2e (Chromium)', 'npx', ['playwright', 'test', '--reporter=list,json']]],
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

/** Runs one step with the terminal as its output; resolves to its exit status. */
function runStep([name, cmd, args]) {
  console.log(`\n=== ${name}: ${cmd} ${args.join(' ')}`);
  const started = Date.now();
  const env = { ...process.env, ELECTRON_SKIP_BINARY_DOWNLOAD: '1', PLAYWRIGHT_JSON_OUTPUT_NAME: playwrightJson };
  return new Promise((done) => {
    const child = spawn(cmd, args, { stdio: 'inherit', env });
    child.on('error', () => done(1));
    child.on('exit', (code, signal) => {
      console.log(`=== ${name}: ${code === 0 ? 'ok' : `FAILED (exit ${code ?? signal})`} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
      done(code ?? 1);
    });
  });
}

const only = process.argv[2];
let status = 0;
for (const group of groups) {
  const steps = group.filter(([name]) => !only || name.startsWith(only));
  const codes = await Promise.all(steps.map(runStep));
  const failed = codes.find((c) => c !== 0);
  if (failed !== undefined) {
    status = failed;
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
