import { defineConfig } from '@playwright/test';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** The Electron binary, or why there is none (it cannot be downloaded on some machines). */
export function electronBinary(): { path: string | null; why: string } {
  try {
    const p = require('electron') as unknown;
    if (typeof p === 'string' && existsSync(p)) return { path: p, why: '' };
    return { path: null, why: `the Electron binary is missing (${String(p)})` };
  } catch (e) {
    return { path: null, why: `the Electron binary is not installed (${(e as Error).message.split('\n')[0]})` };
  }
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
  fullyParallel: false,
  workers: 1,
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
