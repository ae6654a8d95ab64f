import { useEffect, useRef, useState } from 'react';
import type { DatasetRecord } from '../../../shared/dataset';
import { api, onEvent, transportKind } from '../../api/client';
import { toast, toastError } from '../../state/toasts';

/** The browser host takes files as text in one request (its body limit); bigger logs go through `caplab import`. */
const MAX_UPLOAD = 3.5 * 1024 * 1024;

/** Drag-and-drop (or pick) power logs to import; progress from the engine's import.progress events. */
export function ImportDrop({ onImported }: { onImported: (d: DatasetRecord | null) => void }) {
  const [over, setOver] = useState(false);
  const [progress, setProgress] = useState<{ fraction: number; label: string } | null>(null);
  const importId = useRef('');
  const input = useRef<HTMLInputElement>(null);

  useEffect(
    () =>
      onEvent('import.progress', (p) => {
        if (p.import_id === importId.current) setProgress({ fraction: p.fraction, label: `${p.files_done}/${p.files_total} files · ${p.samples.toLocaleString('en')} samples` });
      }),
    [],
  );

  async function run(files: File[]) {
    if (files.length === 0) return;
    importId.current = `imp-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
    setProgress({ fraction: 0, label: `reading ${files.length} file(s)…` });
    try {
      const bridge = transportKind() === 'ipc' ? window.caplab : undefined;
      let req;
      if (bridge?.pathForFile) req = { import_id: importId.current, paths: files.map((f) => bridge.pathForFile!(f)) };
      else {
        const big = files.find((f) => f.size > MAX_UPLOAD);
        if (big) throw new Error(`${big.name} is ${(big.size / 2 ** 20).toFixed(0)} MB: the browser host takes files up to ${(MAX_UPLOAD / 2 ** 20).toFixed(1)} MB; import it with \`caplab import ${big.name}\``);
        req = { import_id: importId.current, files: await Promise.all(files.map(async (f) => ({ name: f.name, text: await f.text() }))) };
      }
      const r = await api.importDataset(req);
      if (r.dataset) toast('ok', `Imported dataset #${r.dataset.id}: ${r.dataset.samples.toLocaleString('en')} samples.`);
      else if (r.duplicate_of) toast('warn', `Already imported as dataset #${r.duplicate_of.dataset_id} (${r.duplicate_of.name}); nothing written.`);
      onImported(r.dataset);
    } catch (e) {
      toastError(e);
    } finally {
      setProgress(null);
    }
  }

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
        void run([...e.dataTransfer.files]);
      }}
    >
      {progress ? (
        <div data-testid="import-progress">
          <progress max={1} value={progress.fraction} /> {(progress.fraction * 100).toFixed(0)} % · {progress.label}
        </div>
      ) : (
        <>
          Drop power logs here (nvidia-smi CSV, WattAMeter, dcgmi dmon, Prometheus JSON, Zeus, CodeCarbon, NLR profiles) or{' '}
          <button className="link" onClick={() => input.current?.click()}>
            choose files
          </button>
          <input ref={input} type="file" multiple hidden data-testid="import-input" onChange={(e) => void run([...(e.target.files ?? [])])} />
        </>
      )}
    </div>
  );
}
