import type { Page } from '@playwright/test';
import { test, expect, go } from './fixtures';
import { quickPlan, startSweep, waitEnded, watchProblems } from './helpers';

const shots = process.env.CAPLAB_SCREENSHOTS_DIR ?? 'docs/screenshots';

/** The canvas as the page script sees it (these specs compile without the DOM's types). */
interface Canvas {
  width: number;
  height: number;
  clientWidth: number;
  getContext(kind: '2d'): { getImageData(x: number, y: number, w: number, h: number): { data: ArrayLike<number> } } | null;
}

/** Opaque canvas pixels within `tol` per channel of `hex` (a trace's colour): lines drawn in it, whatever their shape. */
async function pixelsOf(app: Page, hex: string, tol = 24): Promise<number> {
  return app.getByTestId('live-canvas').evaluate((el, [hex, tol]) => {
    const c = el as unknown as Canvas;
    const [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
    const d = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let i = 0; i < d.length; i += 4) if (Math.abs(d[i]! - r!) < tol && Math.abs(d[i + 1]! - g!) < tol && Math.abs(d[i + 2]! - b!) < tol && d[i + 3]! > 200) n++;
    return n;
  }, [hex, tol] as const);
}

test('live traces on the canvas: every device drawn, legend hides and shows one, hover reads a value, redrawn on resize', async ({ app }) => {
  const problems = watchProblems(app);
  const plan = quickPlan('e2e live canvas', [300, 500], 1, { sim: { speedup: 20, devices: ['h100-sxm', 'h100-sxm'] }, devices: [0, 1] });
  const id = await startSweep(app, plan);
  await go(app, 'console');
  const traces = app.getByTestId('live-traces');
  // Frames follow the sweep while it runs.
  await expect.poll(async () => Number(await traces.getAttribute('data-frames')), { timeout: 30_000 }).toBeGreaterThan(2);
  const during = Number(await traces.getAttribute('data-frames'));
  await expect.poll(async () => Number(await traces.getAttribute('data-frames')), { timeout: 30_000 }).toBeGreaterThan(during + 2);
  expect(await waitEnded(app, id)).toBe('done');
  await expect.poll(async () => Number(await traces.getAttribute('data-points')), { timeout: 30_000 }).toBeGreaterThan(200);

  // Two GPUs: power, cap, clock and temperature each, and throughput; both in the legend, both drawn.
  await expect(traces).toHaveAttribute('data-traces', '9');
  const legend = app.getByTestId('live-legend-item');
  await expect(legend).toHaveCount(2);
  await expect(traces).toContainText('simulated time since the sweep started (s)');
  expect(Number(await traces.getAttribute('data-phases'))).toBeGreaterThanOrEqual(4);
  // The two simulated GPUs read alike, so the second (orange, drawn last) lies over the first (blue).
  const blue = '#4e9af1'; // TRACE_COLORS[0]
  const orange = '#f28e2b'; // TRACE_COLORS[1]
  const before = await pixelsOf(app, orange);
  expect(before).toBeGreaterThan(500);

  // Hiding the second device takes its four traces off at once and uncovers the first; showing it brings them back.
  await legend.nth(1).click();
  await expect(legend.nth(1)).toHaveAttribute('aria-pressed', 'false');
  await expect(traces).toHaveAttribute('data-traces', '5');
  expect(await pixelsOf(app, orange)).toBeLessThan(before / 20);
  expect(await pixelsOf(app, blue)).toBeGreaterThan(500);
  await legend.nth(1).click();
  await expect(legend.nth(1)).toHaveAttribute('aria-pressed', 'true');
  await expect(traces).toHaveAttribute('data-traces', '9');
  expect(await pixelsOf(app, orange)).toBeGreaterThan(before / 2);

  // Hover over the power panel: the nearest point's device, value with its unit, and time.
  const box = (await app.getByTestId('live-canvas').boundingBox())!;
  const tip = app.getByTestId('live-tip');
  let text = '';
  for (let y = box.y + 20; y < box.y + box.height / 4 && !text; y += 6) {
    await app.mouse.move(box.x + box.width * 0.6, y);
    if (await tip.isVisible()) text = (await tip.textContent()) ?? '';
  }
  expect(text).toMatch(/: \d+(\.\d)? W at \d+(\.\d)? s$/);
  await app.mouse.move(box.x + box.width / 2, box.y + box.height + 40);
  await expect(tip).toBeHidden();

  // The light theme redraws the canvas in its colours (tick labels and titles in its text colour), and back.
  // (Tight tolerance: the dark theme's grid colour is within 16 of the light theme's text colour.)
  const lightFg = '#1f2328'; // --fg of the light theme
  expect(await pixelsOf(app, lightFg, 6)).toBe(0);
  await app.getByTestId('theme-toggle').click();
  await expect.poll(() => pixelsOf(app, lightFg, 6)).toBeGreaterThan(100);
  await app.getByTestId('theme-toggle').click();
  await expect.poll(() => pixelsOf(app, lightFg, 6)).toBe(0);

  // The screenshots show the traces, not the "sweep done" toast over their corner.
  await expect(app.locator('.toast')).toHaveCount(0, { timeout: 20_000 });
  for (const [w, h] of [
    [1280, 800],
    [1920, 1080],
  ] as const) {
    const draws = Number(await traces.getAttribute('data-draws'));
    await app.setViewportSize({ width: w, height: h });
    // A new size is drawn at once (the sweep has ended: no frame would come otherwise), at the canvas's new size.
    await expect.poll(async () => Number(await traces.getAttribute('data-draws'))).toBeGreaterThan(draws);
    const sized = await app.getByTestId('live-canvas').evaluate((el) => {
      const c = el as unknown as Canvas;
      return c.width === Math.round(c.clientWidth * (globalThis as unknown as { devicePixelRatio: number }).devicePixelRatio);
    });
    expect(sized).toBe(true);
    await traces.scrollIntoViewIfNeeded();
    await app.waitForTimeout(300);
    await app.screenshot({ path: `${shots}/console-live-traces-${w}x${h}.png` });
  }
  expect(problems).toEqual([]);
});
