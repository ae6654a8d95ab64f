// Where an export worker thread's entry is: the TypeScript source through its tsx boot file (CLI under tsx, tests),
// or the built file next to the bundle (electron-vite builds each worker as an entry of its own).
export function workerUrl(name: 'csv-worker' | 'parquet-export-worker'): URL {
  const here = import.meta.url;
  return here.endsWith('.ts') ? new URL(`./${name}-boot.mjs`, here) : new URL(`./${name}.js`, here);
}
