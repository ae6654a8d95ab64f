import { useEffect, useState } from 'react';
import type { ExportRequest } from '../../shared/export';
import { exportItems, type ExportFormatId, type ExportSubject } from '../../shared/exports';
import { api, onEvent } from '../api/client';
import { toast, toastError } from '../state/toasts';
import { exportedMessage, saveFile } from '../lib/save-file';

type Format = ExportRequest['format'];

/**
 * The Export button: a report or export of what the page shows, with the page's analysis options, so the PDF's
 * numbers are the page's. `request` is everything but the format.
 */
export function ExportMenu({ request, subject = 'sweep', omit = [] }: { request: Omit<ExportRequest, 'format'>; subject?: ExportSubject; omit?: readonly ExportFormatId[] }) {
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState<Format | null>(null);
  const [done, setDone] = useState<number | null>(null);
  const items = exportItems(subject).filter((i) => !omit.includes(i.format));
  // Samples exports say how far they are (rows written of the total).
  useEffect(() => (busy ? onEvent('export.progress', (p) => p.format === busy && p.total > 0 && setDone(Math.min(1, p.done / p.total))) : undefined), [busy]);
  const run = async (format: Format) => {
    setOpen(false);
    setDone(null);
    setBusy(format);
    try {
      const f = await api.exportFile({ ...request, format });
      saveFile(f.filename, f.mime, f.data_base64);
      toast('ok', exportedMessage(f));
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
