// CapLab's own JSON export (`caplab.export/1`, src/shared/export.ts): read whole by the engine's bundle import
// (src/main/lab/datasets/bundle-import.ts), which makes each sweep again; only its detection lives here.
import type { FormatModule } from '../format-module';

export const caplabJsonFormat: FormatModule<'caplab-json'> = {
  format: 'caplab-json',
  detect: [
    // The export's first key: before Prometheus, whose words a sweep's recorded output might contain.
    { content: 'json', priority: 10, test: ({ head }) => /^\{\s*"schema"\s*:\s*"caplab\.export\//.test(head.trimStart()) },
    // Older or reordered documents that name CapLab somewhere: after Prometheus.
    { content: 'json', priority: 30, test: ({ head }) => /"caplab"|"format"\s*:\s*"caplab/.test(head) },
  ],
  reader: { kind: 'sweep-bundle' },
};
