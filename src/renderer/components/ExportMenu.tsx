import { useEffect, useState } from 'react';
import type { ExportRequest } from '../../shared/export';
import { exportItems, type ExportSubject } from '../../shared/exports';
import { api, onEvent } from '../api/client';
import { toast, toastError } from '../state/toasts';

type Format = ExportRequest['format'];

/** Hands bytes to the browser as a download (the desktop app shows its save dialog). */
function save(filename: string, mime: string, base64: string): void {
  const bin = atob(base64);
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  const url = URL.createObjectURL(new Blob([bytes], { type: mime }));
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/**
 * The Export button: a report or export of what the page shows, with the page's analysis options, so the PDF's
 * numbers are the page's. `request` is everything but the format.
 */
export function ExportMenu({ request, subject = 'sweep' }: { request: Omit<ExportRequest, 'format'>; subject?: ExportSubject }) {
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState<Format | null>(null);
  const [done, setDone] = useState<number | null>(null);
  const items = exportItems(subject);
  // Samples exports say how far they are (rows written of the total).
  useEffect(() => (busy ? onEvent('export.progress', (p) => p.format === busy && p.total > 0 && setDone(Math.min(1, p.done / p.total))) : undefined), [busy]);
  const run = async (format: Format) => {
    setOpen(false);
    setDone(null);
    setBusy(format);
    try {
      const f = await api.exportFile({ ...request, format });
      save(f.filename, f.mime, f.data_base64);
      toast('ok', `Exported ${f.filename} (${Math.max(1, Math.round(f.bytes / 1024))} KB)`);
    } catch (e) {
      toastError(e);
    } finally {
      setBusy(null);
    }
  };
  return (
    <div className="export-menu">
      <button onClick={() => setOpen(!open)} aria-haspopup="menu" aria-expanded={open} disabled={busy !== null} data-testid="export-button">
        {busy ? `Exporting ${items.find((i) => i.format === busy)!.label}…${done !== null ? ` ${Math.round(done * 100)} %` : ''}` : 'Export ▾'}
      </button>
      {open && (
        <ul role="menu" className="export-items card">
          {items.map((i) => (
            <li key={i.format} role="none">
              <button role="menuitem" className="link" onClick={() => void run(i.format)} data-testid={`export-${i.format}`}>
                {i.label}
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
