/** A page's section of the user guide and what a newcomer should know first, shown above it. */
export interface PageHelpEntry {
  /** Section id in docs/user-guide.md (the renderer's lib/guide.ts `slug` of its heading). */
  section: string;
  title: string;
  /** The first-run hint: what the page is for and the next step. */
  hint: string;
}

/**
 * The app's pages, one entry each, in navigation order (sidebar, keys 1-9, the desktop View menu). The renderer
 * draws each with its component from `src/renderer/pages/index.ts`; `test/unit/page-registry.test.ts` checks both.
 */
export const pageList = [
  {
    id: 'devices',
    title: 'Devices',
    help: {
      section: 'look-at-your-devices',
      title: 'Look at your devices',
      hint: 'Each GPU with its power limits and sensors, and live readings. Without a GPU you see simulated ones, labelled "simulated". Next: design a sweep (2).',
    },
  },
  {
    id: 'designer',
    title: 'Sweep designer',
    help: {
      section: 'design-a-sweep',
      title: 'Design a sweep',
      hint: 'Pick a template (the quick demo runs in about a minute on a simulated GPU), check the caps and repetitions, then Start sweep. Problems are shown at their fields.',
    },
  },
  {
    id: 'console',
    title: 'Run console',
    help: {
      section: 'run-it',
      title: 'Run it',
      hint: 'Live power, clock, temperature and throughput of the running sweep, or the recorded traces of the last one. When it ends, open Results for the answer.',
    },
  },
  {
    id: 'results',
    title: 'Results',
    help: {
      section: 'read-the-answer',
      title: 'Read the answer',
      hint: 'The best cap per goal with the caps equivalent to it within the margin, efficiency vs cap with 95 % confidence bars, and the overhead slider. Click r1, r2 … in the table for a run\'s traces.',
    },
  },
  {
    id: 'history',
    title: 'History',
    help: {
      section: 'read-the-answer',
      title: 'Read the answer',
      hint: 'Every recorded sweep. Open one to see its results; delete asks first.',
    },
  },
  {
    id: 'datasets',
    title: 'Datasets',
    help: {
      section: 'other-people-s-logs',
      title: "Other people's logs",
      hint: 'Power logs recorded elsewhere (nvidia-smi, DCGM, Prometheus, Zeus, CodeCarbon ...): drop them here to import them. Segments with a cap and work units are analysed like a sweep\'s runs.',
    },
  },
  {
    id: 'facility',
    title: 'Facility',
    help: {
      section: 'plan-a-facility',
      title: 'Plan a facility',
      hint: 'Measured node profiles scaled to a whole site: edit the YAML configuration (docs/facility.md describes it) and run it to see the site\'s load and energy per cap level.',
    },
  },
  {
    id: 'cluster',
    title: 'Cluster',
    help: {
      section: 'run-on-a-cluster',
      title: 'Run on a cluster',
      hint: 'A sweep split over Slurm nodes as one job array: submit a plan, follow its tasks here, then collect them into one sweep that the Results page analyses like a local one.',
    },
  },
  // Added last, so the number keys of the pages before them stay as they were; Tune a job keeps key 9 (Overlay is
  // reached from the runs picked on Results or a dataset).
  {
    id: 'tune',
    title: 'Tune a job',
    help: {
      section: '5a-tune-a-job',
      title: 'Tune a job',
      hint: 'Your own job (training, rendering ...) runs while CapLab profiles caps on it and holds the best for the rest of the run; the limit is restored when it ends. Type the command, check the options, then Start tuning: the Run console shows it live.',
    },
  },
  {
    id: 'overlay',
    title: 'Overlay',
    help: {
      section: '4a-overlay-traces',
      title: 'Overlay traces',
      hint: 'Runs of one sweep or several, and dataset segments, on one time axis: t = 0 at each window start, warm-up, measure and cool-down shaded. Tick runs in the Results page\'s per-cap table or segments on a dataset, then Overlay traces.',
    },
  },
] as const satisfies readonly { id: string; title: string; help: PageHelpEntry }[];

export type PageId = (typeof pageList)[number]['id'];
