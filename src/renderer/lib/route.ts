import { useSyncExternalStore } from 'react';
import { parseHash, type Page, type Route } from './routes';

export { PAGE_HELP, PAGES, PAGE_TITLES, parseHash, type Page, type Route } from './routes';

function subscribe(cb: () => void): () => void {
  window.addEventListener('hashchange', cb);
  return () => window.removeEventListener('hashchange', cb);
}

export function useRoute(): Route {
  const hash = useSyncExternalStore(subscribe, () => window.location.hash);
  return parseHash(hash);
}

export function navigate(page: Page, param?: string | number | null): void {
  const h = `#/${page}${param != null ? `/${encodeURIComponent(String(param))}` : ''}`;
  if (window.location.hash !== h) window.location.hash = h;
}
