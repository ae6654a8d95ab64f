// Hash routes, pure (unit-tested without a DOM).
import { pageList, type PageHelpEntry, type PageId } from '../../shared/pages';

export const PAGES: readonly PageId[] = pageList.map((p) => p.id);
export type Page = PageId;

export const PAGE_TITLES = Object.fromEntries(pageList.map((p) => [p.id, p.title])) as Record<Page, string>;
/** Each page's user-guide section and first-run hint (the page list requires one per page). */
export const PAGE_HELP = Object.fromEntries(pageList.map((p) => [p.id, p.help])) as Record<Page, PageHelpEntry>;

export interface Route {
  page: Page;
  /** e.g. the sweep id of #/results/12 */
  param: string | null;
}

/** A route parameter that can name a stored sweep or dataset (`#/results/12`; `#/results/abc` cannot). */
export function isIdParam(param: string): boolean {
  return /^\d+$/.test(param);
}

export function parseHash(hash: string): Route {
  const [page, param] = hash.replace(/^#\/?/, '').split('/');
  return { page: (PAGES as readonly string[]).includes(page ?? '') ? (page as Page) : 'devices', param: param ? decodeURIComponent(param) : null };
}

