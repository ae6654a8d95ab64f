/**
 * The app's pages, one line each, in navigation order (sidebar, keys 1-9, the desktop View menu). The renderer
 * draws each with its component from `src/renderer/pages/index.ts`; `test/unit/page-registry.test.ts` checks both.
 */
export const pageList = [
  { id: 'devices', title: 'Devices' },
  { id: 'designer', title: 'Sweep designer' },
  { id: 'console', title: 'Run console' },
  { id: 'results', title: 'Results' },
  { id: 'history', title: 'History' },
  { id: 'datasets', title: 'Datasets' },
  { id: 'facility', title: 'Facility' },
  { id: 'cluster', title: 'Cluster' },
  // Added last, so the number keys of the pages before them stay as they were; Tune a job keeps key 9 (Overlay is
  // reached from the runs picked on Results or a dataset).
  { id: 'tune', title: 'Tune a job' },
  { id: 'overlay', title: 'Overlay' },
] as const;

export type PageId = (typeof pageList)[number]['id'];
