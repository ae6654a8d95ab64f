// The CLI's PDF printer: the report HTML printed by a headless Chromium through playwright-core. The browser is the
// one named (--browser / CAPLAB_BROWSER), else a system Chromium or Chrome, else Playwright's own Chromium.
import { existsSync } from 'node:fs';
import type { Paper } from '../../../core/report/model';
import { ExportError } from '../files/atomic';

export class NoBrowserError extends ExportError {
  constructor(message: string) {
    super(message, 'unavailable');
    this.name = 'NoBrowserError';
  }
}

const SYSTEM_BROWSERS = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome', '/usr/bin/google-chrome-stable', '/snap/bin/chromium'];

/** Playwright's downloaded Chromium, if one is installed. */
async function playwrightChromium(): Promise<string | null> {
  try {
    const { chromium } = await import('playwright-core');
    const p = chromium.executablePath();
    return p && existsSync(p) ? p : null;
  } catch {
    return null;
  }
}

/**
 * The browser to print with. A named one (--browser, CAPLAB_BROWSER) must exist (ExportError otherwise); else the
 * first of CAPLAB_BROWSER_PATHS (colon-separated) when set, or of the usual system paths and Playwright's Chromium.
 * Throws NoBrowserError when none is found.
 */
export async function findBrowser(named: string | undefined, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const asked = named ?? env.CAPLAB_BROWSER;
  if (asked) {
    if (!existsSync(asked)) throw new ExportError(`browser ${asked} does not exist (named by ${named ? '--browser' : 'CAPLAB_BROWSER'})`);
    return asked;
  }
  const list = env.CAPLAB_BROWSER_PATHS !== undefined ? env.CAPLAB_BROWSER_PATHS.split(':').filter(Boolean) : SYSTEM_BROWSERS;
  const found = list.find((p) => existsSync(p)) ?? (env.CAPLAB_BROWSER_PATHS === undefined ? await playwrightChromium() : null);
  if (!found) throw new NoBrowserError(`no Chromium or Chrome found (looked for ${list.join(', ') || 'nothing'}${env.CAPLAB_BROWSER_PATHS === undefined ? " and Playwright's Chromium" : ''}); name one with --browser PATH`);
  return found;
}

export interface PrintOptions {
  paper: Paper;
  /** Shown in the footer beside the page number. */
  footer: string;
}

const escapeFooter = (s: string) => s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);

/** The footer both printers put on every page: the title and "page N of M" (Chromium fills the spans). */
export function footerTemplate(text: string): string {
  return `<div style="font: 8px Helvetica, Arial, sans-serif; color: #57606a; width: 100%; padding: 0 14mm; display: flex; justify-content: space-between;"><span>${escapeFooter(text)}</span><span>page <span class="pageNumber"></span> of <span class="totalPages"></span></span></div>`;
}

/** Prints `html` to PDF bytes with the browser at `executable`. */
export async function printPdfWithChromium(executable: string, html: string, opts: PrintOptions): Promise<Buffer> {
  const { chromium } = await import('playwright-core');
  let browser;
  try {
    browser = await chromium.launch({ executablePath: executable, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run', '--disable-background-networking'], timeout: 60_000 });
  } catch (e) {
    throw new NoBrowserError(`cannot start ${executable}: ${(e as Error).message.split('\n')[0]}`);
  }
  try {
    const page = await browser.newPage();
    await page.setContent(html, { waitUntil: 'load' });
    return await page.pdf({
      format: opts.paper === 'a4' ? 'A4' : 'Letter',
      printBackground: true,
      preferCSSPageSize: true,
      displayHeaderFooter: true,
      headerTemplate: '<span></span>',
      footerTemplate: footerTemplate(opts.footer),
      outline: true,
      tagged: true,
    });
  } finally {
    await browser.close();
  }
}
