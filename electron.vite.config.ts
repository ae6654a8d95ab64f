import { resolve } from 'node:path';
import { defineConfig } from 'electron-vite';
import react from '@vitejs/plugin-react';

// Native modules stay external: they are loaded from node_modules at run time.
const nativeExternals = ['better-sqlite3', 'node-pty', 'koffi'];

export default defineConfig({
  main: {
    build: {
      rollupOptions: {
        // Worker threads are entries of their own, started from beside the bundle: the facility planner's
        // (facility/pool.ts), the samples exports' (exporters/csv-workers.ts, exporters/parquet-encoder.ts), the
        // importer's parse thread (datasets/parse-thread.ts) and the NLR Parquet reader's (datasets/parquet-thread.ts).
        input: {
          index: resolve(__dirname, 'src/main/electron/index.ts'),
          'facility-worker': resolve(__dirname, 'src/main/lab/facility/worker.ts'),
          'csv-worker': resolve(__dirname, 'src/main/lab/exporters/csv-worker.ts'),
          'parquet-export-worker': resolve(__dirname, 'src/main/lab/exporters/parquet-export-worker.ts'),
          'import-worker': resolve(__dirname, 'src/main/lab/datasets/parse-worker.ts'),
          'parquet-worker': resolve(__dirname, 'src/main/lab/datasets/parquet-worker.ts'),
        },
        external: nativeExternals,
      },
    },
  },
  preload: {
    build: {
      rollupOptions: {
        input: { index: resolve(__dirname, 'src/preload/index.ts') },
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    root: resolve(__dirname, 'src/renderer'),
    build: {
      // electron-vite leaves every bundle unminified by default; the renderer is also served to browsers by
      // `caplab serve`, so minify it (JS and CSS).
      minify: true,
      // The prebuilt CSP-safe Plotly bundle alone is about 5.2 MB of the ~5.7 MB; warn only above that.
      chunkSizeWarningLimit: 6000,
      rollupOptions: { input: { index: resolve(__dirname, 'src/renderer/index.html') } },
    },
    plugins: [react()],
  },
});
