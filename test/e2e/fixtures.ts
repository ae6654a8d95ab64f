// Shared fixtures: `app` is a page of the CapLab UI, opened through the browser host (chromium project) or the
// desktop app (electron project, where the binary exists; skipped with the reason otherwise).
import { test as base, expect, type Page } from '@playwright/test';
import { startLabHost, type LabHost } from './lab-host';

export const test = base.extend<{ app: Page; hostUrl: string }, { labHost: LabHost }>({
  // One host per worker, started before its first test (auto): specs that only read CAPLAB_E2E_DIR get it too.
  labHost: [
    // eslint-disable-next-line no-empty-pattern -- Playwright needs the destructuring pattern
    async ({}, use, worker) => {
      const host = await startLabHost(`w${worker.workerIndex}`);
      // Specs read the host's folder from the environment (the worker is a process of its own); the Electron
      // project's app and the CLI calls of the specs share the host's leases and journal.
      process.env.CAPLAB_E2E_DIR = host.dir;
      process.env.CAPLAB_LEASE_DIR = host.env.CAPLAB_LEASE_DIR;
      process.env.CAPLAB_LEASE_NS = host.env.CAPLAB_LEASE_NS;
      try {
        await use(host);
      } finally {
        await host.stop();
      }
    },
    { scope: 'worker', auto: true },
  ],
  hostUrl: async ({ labHost }, use) => {
    await use(labHost.url);
  },
  app: async ({ page, hostUrl }, use, info) => {
    if (info.project.name === 'electron') {
      const skip = info.project.metadata?.skip as string | null;
      test.skip(!!skip, `electron project skipped: ${skip}`);
      const { _electron } = await import('@playwright/test');
      const eapp = await _electron.launch({
        executablePath: info.project.metadata.electron as string,
        args: ['.'],
        env: { ...process.env, CAPLAB_DB: `${process.env.CAPLAB_E2E_DIR}/electron.db`, CAPLAB_SIM_STATE_DIR: `${process.env.CAPLAB_E2E_DIR}/sim` } as Record<string, string>,
      });
      const win = await eapp.firstWindow();
      await use(win);
      await eapp.close();
      return;
    }
    await page.goto(hostUrl);
    await use(page);
  },
});

export { expect };

/** Goes to a page through the sidebar. */
export async function go(page: Page, name: 'devices' | 'designer' | 'console' | 'results' | 'history' | 'datasets' | 'facility' | 'tune'): Promise<void> {
  await page.getByTestId(`nav-${name}`).click();
  await expect(page.getByTestId(`nav-${name}`)).toHaveAttribute('aria-current', 'page');
}

/** Screenshots at the two sizes docs/screenshots keeps (name-1280x800.png, name-1920x1080.png), `testId` in view. */
export async function screenshotSizes(page: Page, testId: string, name: string): Promise<void> {
  for (const [width, height] of [
    [1280, 800],
    [1920, 1080],
  ] as const) {
    await page.setViewportSize({ width, height });
    await page.getByTestId(testId).scrollIntoViewIfNeeded();
    await page.screenshot({ path: `docs/screenshots/${name}-${width}x${height}.png` });
  }
}

/** Calls the engine from inside the page, over whichever transport the page uses (IPC bridge or HTTP host). */
export async function callApi<T = unknown>(page: Page, method: string, input: unknown): Promise<T> {
  return page.evaluate(
    async ([m, i]) => {
      const bridge = (globalThis as unknown as { caplab?: { call(m: string, i: unknown): Promise<unknown> } }).caplab;
      if (bridge) return bridge.call(m as string, i);
      // As the page itself does: the token it keeps in session storage, as a bearer header.
      const token = (globalThis as unknown as { sessionStorage: { getItem(k: string): string | null } }).sessionStorage.getItem('caplab_token') ?? '';
      const res = await fetch(`/api/${m}`, { method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` }, body: JSON.stringify(i) });
      if (!res.ok) throw new Error(`${m}: HTTP ${res.status} ${await res.text()}`);
      return res.json();
    },
    [method, input] as const,
  ) as Promise<T>;
}
