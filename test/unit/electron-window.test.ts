import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { devRendererUrl, ELECTRON_CSP, isAllowedNavigation, windowOptions } from '../../src/main/electron/window';
import { isTrustedRendererUrl } from '../../src/main/host/ipc';
import { eventNames, methodNames } from '../../src/shared/api';

describe('Electron window options', () => {
  const o = windowOptions({ preloadPath: '/app/out/preload/index.cjs', methods: methodNames, events: eventNames });

  it('uses the secure web preferences', () => {
    expect(o.webPreferences).toMatchObject({
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      navigateOnDragDrop: false,
    });
    expect(o.webPreferences.preload).toBe('/app/out/preload/index.cjs');
    expect(o.show).toBe(false);
  });

  it('hands the contract name lists to the preload', () => {
    const args = o.webPreferences.additionalArguments;
    expect(args).toContain(`--caplab-methods=${methodNames.join(',')}`);
    expect(args).toContain(`--caplab-events=${eventNames.join(',')}`);
    expect(() => windowOptions({ preloadPath: 'x', methods: ['a,b --inject'], events: [] })).toThrow();
  });

  it('has a strict CSP without inline or eval script', () => {
    expect(ELECTRON_CSP).toContain("script-src 'self'");
    expect(ELECTRON_CSP).not.toMatch(/unsafe-eval|script-src[^;]*unsafe-inline/);
    expect(ELECTRON_CSP).toContain("object-src 'none'");
  });

  it('allows navigation only within the renderer', () => {
    const r = 'file:///app/out/renderer/index.html';
    expect(isAllowedNavigation('file:///app/out/renderer/index.html#/results', r)).toBe(true);
    expect(isAllowedNavigation('file:///etc/passwd', r)).toBe(false);
    expect(isAllowedNavigation('https://evil.example/', r)).toBe(false);
    expect(isAllowedNavigation('http://localhost:5173/#/x', 'http://localhost:5173/')).toBe(true);
    expect(isAllowedNavigation('not a url', r)).toBe(false);
  });

  it('trusts IPC only from the renderer file or the dev server', () => {
    const renderer = { file: '/app/out/renderer/index.html' };
    expect(isTrustedRendererUrl('file:///app/out/renderer/index.html#/devices', renderer)).toBe(true);
    expect(isTrustedRendererUrl('file:///tmp/evil.html', renderer)).toBe(false);
    expect(isTrustedRendererUrl('https://evil.example/', renderer)).toBe(false);
    expect(isTrustedRendererUrl(undefined, renderer)).toBe(false);
    expect(isTrustedRendererUrl('http://localhost:5173/', { devOrigin: 'http://localhost:5173' })).toBe(true);
    expect(isTrustedRendererUrl('http://localhost:5174/', { devOrigin: 'http://localhost:5173' })).toBe(false);
  });

  it('trusts ELECTRON_RENDERER_URL only in `npm run dev`: unpackaged, started by electron-vite dev, on this machine', () => {
    const dev = { NODE_ENV_ELECTRON_VITE: 'development', ELECTRON_RENDERER_URL: 'http://localhost:5173' };
    expect(devRendererUrl(false, dev)).toBe('http://localhost:5173');
    expect(devRendererUrl(false, { ...dev, ELECTRON_RENDERER_URL: 'http://127.0.0.1:5174/' })).toBe('http://127.0.0.1:5174/');
    // Packaged: the environment is never asked.
    expect(devRendererUrl(true, dev)).toBeUndefined();
    // Unpackaged but not electron-vite dev (a built app started from the checkout, electron-vite preview).
    expect(devRendererUrl(false, { ELECTRON_RENDERER_URL: 'http://localhost:5173' })).toBeUndefined();
    expect(devRendererUrl(false, { ...dev, NODE_ENV_ELECTRON_VITE: 'production' })).toBeUndefined();
    // Never another machine, another scheme, credentials or garbage.
    for (const url of ['https://evil.example/', 'http://localhost.evil.example:5173', 'file:///tmp/evil.html', 'javascript:alert(1)', 'http://user:pw@localhost:5173', 'not a url', '']) {
      expect(devRendererUrl(false, { ...dev, ELECTRON_RENDERER_URL: url }), url).toBeUndefined();
    }
  });

  it('main process takes its renderer URL from devRendererUrl, not from the environment directly', () => {
    const src = readFileSync(new URL('../../src/main/electron/index.ts', import.meta.url), 'utf8');
    expect(src).toMatch(/const devUrl = devRendererUrl\(app\.isPackaged, process\.env\);/);
    expect(src).not.toMatch(/ELECTRON_RENDERER_URL/);
  });

  it('is tested without importing electron', () => {
    const src = readFileSync(new URL('../../src/main/electron/window.ts', import.meta.url), 'utf8');
    expect(src).not.toMatch(/from ['"]electron['"]/);
  });
});
