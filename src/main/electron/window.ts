// Pure window configuration: no `electron` import, so the unit test runs on plain Node.

export const APP_TITLE = 'CapLab';

/** The subset of BrowserWindowConstructorOptions CapLab sets; structurally compatible with Electron's type. */
export interface CapLabWindowOptions {
  width: number;
  height: number;
  minWidth: number;
  minHeight: number;
  title: string;
  show: boolean;
  backgroundColor: string;
  autoHideMenuBar: boolean;
  webPreferences: {
    preload: string;
    contextIsolation: true;
    sandbox: true;
    nodeIntegration: false;
    nodeIntegrationInWorker: false;
    nodeIntegrationInSubFrames: false;
    webSecurity: true;
    allowRunningInsecureContent: false;
    webviewTag: false;
    experimentalFeatures: false;
    navigateOnDragDrop: false;
    spellcheck: false;
    safeDialogs: true;
    additionalArguments: string[];
  };
}

/**
 * Options for the main window. The contract's method and event names travel to the sandboxed preload as
 * arguments (it may not require modules), so the preload's allow-lists come from the one contract.
 */
export function windowOptions(opts: { preloadPath: string; methods: readonly string[]; events: readonly string[]; dark?: boolean }): CapLabWindowOptions {
  for (const n of [...opts.methods, ...opts.events]) {
    if (!/^[A-Za-z][A-Za-z0-9.]*$/.test(n)) throw new Error(`contract name not safe to pass to the preload: ${n}`);
  }
  return {
    width: 1400,
    height: 900,
    minWidth: 960,
    minHeight: 640,
    title: APP_TITLE,
    show: false,
    backgroundColor: opts.dark === false ? '#f6f7f9' : '#111418',
    autoHideMenuBar: false,
    webPreferences: {
      preload: opts.preloadPath,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      experimentalFeatures: false,
      navigateOnDragDrop: false,
      spellcheck: false,
      safeDialogs: true,
      additionalArguments: [`--caplab-methods=${opts.methods.join(',')}`, `--caplab-events=${opts.events.join(',')}`],
    },
  };
}

/** The CSP the Electron session adds to every response (the page also carries it as a meta tag). */
export const ELECTRON_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "object-src 'none'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

/** Navigation inside the window is allowed only to the renderer itself (hash routes); everything else is blocked. */
export function isAllowedNavigation(target: string, rendererUrl: string): boolean {
  try {
    const a = new URL(target);
    const b = new URL(rendererUrl);
    if (a.protocol === 'file:') return b.protocol === 'file:' && a.pathname === b.pathname;
    return a.origin === b.origin;
  } catch {
    return false;
  }
}

/**
 * The renderer URL to load instead of the built file, or undefined. Only `npm run dev` gives one: the app unpackaged,
 * started by `electron-vite dev` (which sets NODE_ENV_ELECTRON_VITE=development and ELECTRON_RENDERER_URL to its dev
 * server), and the URL an http(s) one on this machine. A packaged app, or one started any other way, loads its own
 * file whatever the environment says, so the environment cannot point the window (and its IPC trust) elsewhere.
 */
export function devRendererUrl(isPackaged: boolean, env: NodeJS.ProcessEnv): string | undefined {
  const raw = env.ELECTRON_RENDERER_URL;
  if (isPackaged || env.NODE_ENV_ELECTRON_VITE !== 'development' || !raw) return undefined;
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return undefined;
  }
  const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(u.hostname);
  return (u.protocol === 'http:' || u.protocol === 'https:') && loopback && !u.username && !u.password ? raw : undefined;
}
