import { useEffect, useRef, useState } from 'react';
import type { DatasetRecord } from '../../../shared/dataset';
import { importerList } from '../../../shared/importers';
import { api, onEvent, transportKind, uploadFile } from '../../api/client';
import { toast, toastError } from '../../state/toasts';
import { fieldList, ImportPreviewPanel, type ImportChoice } from './ImportPreview';

const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(bytes < 10 * 2 ** 20 ? 1 : 0);

/** Streams the files to the browser host's upload folder one after another, with progress; their paths on the host. */
async function uploadAll(files: File[], onProgress: (fraction: number, label: string) => void): Promise<string[]> {
  const total = files.reduce((s, f) => s + f.size, 0) || 1;
  const paths: string[] = [];
  let before = 0;
  for (const f of files) {
    const report = (sent: number) => onProgress((before + sent) / total, `uploading ${f.name}: ${mb(before + sent)} of ${mb(total)} MB`);
    // Shown before the first byte: a local upload can end before the browser's first progress event.
    report(0);
    const up = uploadFile(f, report);
    if (!up) throw new Error('this connection takes no uploads');
    paths.push((await up).path);
    before += f.size;
  }
  return paths;
}

/**
 * Drag-and-drop (or pick) power logs to import. In the desktop app files are imported where they are; through the
 * browser host they are streamed to its upload folder first (any size, progress as they go). Then the preview shows
 * what the import would read, with format, time zone and field list pickers; Import takes the options previewed.
 * Import progress comes from the engine's import.progress events.
 */
export function ImportDrop({ onImported }: { onImported: (d: DatasetRecord | null) => void }) {
  const [over, setOver] = useState(false);
  const [progress, setProgress] = useState<{ fraction: number; label: string } | null>(null);
  const [staged, setStaged] = useState<{ paths: string[]; name: string | undefined } | null>(null);
  const importId = useRef('');
  const input = useRef<HTMLInputElement>(null);

  useEffect(
    () =>
      onEvent('import.progress', (p) => {
        if (p.import_id === importId.current) setProgress({ fraction: p.fraction, label: `${p.files_done}/${p.files_total} files · ${p.samples.toLocaleString('en')} samples` });
      }),
    [],
  );

  /** The files' paths on the engine's machine (uploaded first through the browser host), staged for the preview. */
  async function stage(files: File[]) {
    if (files.length === 0) return;
    setProgress({ fraction: 0, label: `reading ${files.length} file(s)…` });
    try {
      const bridge = transportKind() === 'ipc' ? window.caplab : undefined;
      const paths = bridge?.pathForFile
        ? files.map((f) => bridge.pathForFile!(f))
        : await uploadAll(files, (fraction, label) => setProgress({ fraction, label }));
      setStaged({ paths, name: files.length === 1 ? files[0]!.name : undefined });
    } catch (e) {
      toastError(e);
    } finally {
      setProgress(null);
      if (input.current) input.current.value = '';
    }
  }

  async function run(paths: string[], name: string | undefined, c: ImportChoice) {
    importId.current = `imp-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
    setStaged(null);
    setProgress({ fraction: 0, label: 'importing…' });
    try {
      const req = { import_id: importId.current, paths, name, format: c.format, tz: c.tz.trim() || undefined, fields: fieldList(c.fields) };
      const r = await api.importDataset(req);
      if (r.dataset) toast('ok', `Imported dataset #${r.dataset.id}: ${r.dataset.samples.toLocaleString('en')} samples.`);
      else if (r.duplicate_of) toast('warn', `Already imported as dataset #${r.duplicate_of.dataset_id} (${r.duplicate_of.name}); nothing written.`);
      for (const sw of r.sweeps ?? [])
        toast(sw.duplicate_of_sweep === null ? 'ok' : 'warn', sw.duplicate_of_sweep === null ? `Imported sweep #${sw.sweep_id} (${sw.name}) from a CapLab export: see History.` : `Already imported as sweep #${sw.duplicate_of_sweep}; nothing written.`);
      onImported(r.dataset);
    } catch (e) {
      toastError(e);
    } finally {
      setProgress(null);
    }
  }

  if (staged && !progress) return <ImportPreviewPanel paths={staged.paths} onImport={(c) => void run(staged.paths, staged.name, c)} onCancel={() => setStaged(null)} />;
  return (
    <div
      className={`dropzone${over ? ' over' : ''}`}
      data-testid="import-drop"
      onDragOver={(e) => {
        e.preventDefault();
        setOver(true);
      }}
      onDragLeave={() => setOver(false)}
      onDrop={(e) => {
        e.preventDefault();
        setOver(false);
        void stage([...e.dataTransfer.files]);
      }}
    >
      {progress ? (
        <div data-testid="import-progress">
          <progress max={1} value={progress.fraction} /> {(progress.fraction * 100).toFixed(0)} % · {progress.label}
        </div>
      ) : (
        <>
          Drop power logs here ({importerList.map((i) => i.label).join(', ')}, zip archives of any of these; any size) or{' '}
          <button className="link" onClick={() => input.current?.click()}>
            choose files
          </button>
          . The first rows are shown before anything is written.
          <input ref={input} type="file" multiple hidden data-testid="import-input" onChange={(e) => void stage([...(e.target.files ?? [])])} />
        </>
      )}
    </div>
  );
}
