// Hash routes, pure (unit-tested without a DOM).
export const PAGES = ['devices', 'designer', 'console', 'results', 'history', 'datasets', 'facility', 'cluster'] as const;
export type Page = (typeof PAGES)[number];

export const PAGE_TITLES: Record<Page, string> = {
  devices: 'Devices',
  designer: 'Sweep designer',
  console: 'Run console',
  results: 'Results',
  history: 'History',
  datasets: 'Datasets',
  facility: 'Facility',
  cluster: 'Cluster',
};

export interface Route {
  page: Page;
  /** e.g. the sweep id of #/results/12 */
  param: string | null;
}

export function parseHash(hash: string): Route {
  const [page, param] = hash.replace(/^#\/?/, '').split('/');
  return { page: (PAGES as readonly string[]).includes(page ?? '') ? (page as Page) : 'devices', param: param ? decodeURIComponent(param) : null };
}

