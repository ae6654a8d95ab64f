import { useEffect, useState } from 'react';
import { transportKind } from './api/client';
import { useConnection } from './state/connection';
import { ShortcutsHelp } from './components/ShortcutsHelp';
import { AboutDialog } from './components/AboutDialog';
import { GuideDialog } from './components/GuideDialog';
import { PageHelp } from './components/PageHelp';
import { Toasts } from './components/Toasts';
import { useCommand, useKeyboardShortcuts, type Command } from './lib/commands';
import { navigate, PAGE_HELP, PAGE_TITLES, PAGES, useRoute, type Page } from './lib/route';
import { pageComponents } from './pages';
import { useSettings } from './state/settings';
import { isRunning, useSweep } from './state/sweep';
import { toast } from './state/toasts';

function useFileDrop(): void {
  useEffect(() => {
    const over = (e: DragEvent) => e.preventDefault();
    const drop = (e: DragEvent) => {
      e.preventDefault();
      const file = e.dataTransfer?.files?.[0];
      if (!file) return;
      if (/\.ya?ml$/i.test(file.name)) {
        navigate('designer');
        setTimeout(() => window.dispatchEvent(new CustomEvent('caplab:plan-file', { detail: file })), 50);
      } else {
        toast('warn', `${file.name}: importing measurement files is not available in this build yet; drop a plan (.yaml) to load it.`);
      }
    };
    window.addEventListener('dragover', over);
    window.addEventListener('drop', drop);
    return () => {
      window.removeEventListener('dragover', over);
      window.removeEventListener('drop', drop);
    };
  }, []);
}

export function App() {
  const route = useRoute();
  const theme = useSettings((s) => s.theme);
  const toggleTheme = useSettings((s) => s.toggleTheme);
  const conn = useConnection();
  const running = useSweep(isRunning);
  const [help, setHelp] = useState(false);
  const [guide, setGuide] = useState<string | null>(null);
  const [about, setAbout] = useState(false);
  useKeyboardShortcuts();
  useFileDrop();

  useEffect(() => {
    document.documentElement.dataset.theme = theme;
  }, [theme]);
  useEffect(() => {
    document.title = `CapLab · ${PAGE_TITLES[route.page]}${running ? ' · running' : ''}`;
  }, [route.page, running]);
  useEffect(() => void useSweep.getState().discover(), []);

  const CurrentPage = pageComponents[route.page];

  useCommand([...PAGES.map((p) => `nav:${p}` as const), 'theme:toggle', 'help:shortcuts'], (c: Command) => {
    if (c.startsWith('nav:')) navigate(c.slice(4) as Page);
    else if (c === 'theme:toggle') toggleTheme();
    else setHelp((h) => !h);
  });

  return (
    <div className="app">
      <nav className="sidebar" aria-label="Pages">
        <div className="brand">
          Cap<span>Lab</span>
        </div>
        {PAGES.map((p, i) => (
          <a key={p} href={`#/${p}`} className={route.page === p ? 'on' : ''} aria-current={route.page === p ? 'page' : undefined} data-testid={`nav-${p}`}>
            <span className="key">{i + 1}</span> {PAGE_TITLES[p]}
            {p === 'console' && running && <span className="dot live" title="sweep running" />}
          </a>
        ))}
        <div className="grow" />
        <button className="link" onClick={toggleTheme} data-testid="theme-toggle" title="t">
          {theme === 'dark' ? 'Light theme' : 'Dark theme'}
        </button>
        <button className="link" onClick={() => setHelp(true)} title="?">
          Shortcuts
        </button>
        <button className="link" onClick={() => setGuide(PAGE_HELP[route.page].section)} data-testid="open-guide">
          User guide
        </button>
        <button className="link" onClick={() => setAbout(true)} data-testid="open-about">
          About
        </button>
        <div className={`conn conn-${conn}`} data-testid="connection">
          <span className="dot" /> {transportKind() === 'ipc' ? 'desktop' : conn === 'open' ? 'connected' : conn}
        </div>
      </nav>
      <main className="main">
        {conn === 'unauthorized' && (
          <div className="banner warn" role="alert">
            Not authorised: open the URL with <code>#token=…</code> that <code>caplab serve</code> printed.
          </div>
        )}
        <PageHelp page={route.page} onGuide={setGuide} />
        <CurrentPage param={route.param} />
      </main>
      {help && <ShortcutsHelp onClose={() => setHelp(false)} />}
      {guide !== null && <GuideDialog section={guide} onClose={() => setGuide(null)} />}
      {about && <AboutDialog onClose={() => setAbout(false)} />}
      <Toasts />
    </div>
  );
}
