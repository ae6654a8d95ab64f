import { defineConfig } from '@playwright/test';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

const ELECTRON_ABSENT =
  'no Electron binary on this machine (npm install does not download it here, and there is no display), so the same specs ran in Chromium against the browser host instead. ' +
  'To run them in the desktop app: on a machine with a display and network, run `npm start` once (it fetches the binary), then `npx playwright test --project=electron`.';

/** The Electron binary, or why there is none (it cannot be downloaded on some machines). */
export function electronBinary(): { path: string | null; why: string } {
  try {
    const p = require('electron') as unknown;
    if (typeof p === 'string' && existsSync(p)) return { path: p, why: '' };
  } catch {
    // Electron's own message here advises deleting node_modules/electron; that is not the reason on this machine.
  }
  return { path: null, why: ELECTRON_ABSENT };
}

const chromiumPath = process.env.CAPLAB_CHROMIUM ?? '/usr/bin/chromium';
const chromiumLaunch = {
  executablePath: existsSync(chromiumPath) ? chromiumPath : undefined,
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-dev-shm-usage'],
};
const electron = electronBinary();
if (!electron.path) process.env.CAPLAB_E2E_ELECTRON_SKIP = `electron project skipped: ${electron.why}`;

export default defineConfig({
  testDir: 'test/e2e',
  testMatch: /.*\.spec\.ts$/,
  timeout: 120_000,
  expect: { timeout: 15_000 },
  // Spec files run side by side, each worker on a browser host of its own (fixtures.ts); tests of one file in order.
  // Four: the specs mostly wait on simulated sweeps (0.6 cores busy with two workers on a 2-core machine).
  fullyParallel: false,
  workers: Number(process.env.CAPLAB_E2E_WORKERS ?? 4),
  retries: 0,
  reporter: process.env.CI ? [['list'], ['html', { open: 'never', outputFolder: 'playwright-report' }]] : 'list',
  globalSetup: './test/e2e/global-setup.ts',
  use: {
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
    viewport: { width: 1400, height: 900 },
  },
  projects: [
    {
      name: 'chromium',
      use: {
        browserName: 'chromium',
        launchOptions: chromiumLaunch,
      },
    },
    {
      // Same specs inside the desktop app (fixtures.ts launches Electron); skipped where no binary exists.
      // (The system Chromium is configured only because Playwright sets up its default page before the skip.)
      name: 'electron',
      use: { browserName: 'chromium', launchOptions: chromiumLaunch },
      metadata: { electron: electron.path, skip: electron.path ? null : electron.why },
    },
  ],
});
