import { useEffect, useState } from 'react';
import type { ExportRequest } from '../../shared/export';
import { api, onEvent } from '../api/client';
import { toast, toastError } from '../state/toasts';

type Format = ExportRequest['format'];

/** What the button offers for a sweep, a comparison of sweeps and a dataset. */
export type ExportSubject = 'sweep' | 'compare' | 'dataset';

const ITEMS: { format: Format; label: string; of: ExportSubject[] }[] = [
  { format: 'pdf', label: 'PDF report', of: ['sweep', 'compare', 'dataset'] },
  { format: 'html', label: 'HTML report', of: ['sweep', 'compare', 'dataset'] },
  { format: 'caps-csv', label: 'Per-cap table (CSV)', of: ['sweep', 'compare', 'dataset'] },
  { format: 'runs-csv', label: 'Runs (CSV)', of: ['sweep', 'compare'] },
  { format: 'segments-csv', label: 'Segments (CSV)', of: ['dataset'] },
  { format: 'samples-csv', label: 'Samples (CSV)', of: ['sweep', 'dataset'] },
  { format: 'samples-parquet', label: 'Samples (Parquet)', of: ['sweep', 'dataset'] },
  { format: 'json', label: 'Whole sweep (JSON)', of: ['sweep'] },
  { format: 'json', label: 'Comparison (JSON)', of: ['compare'] },
  { format: 'json', label: 'Dataset analysis (JSON)', of: ['dataset'] },
];

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
  const items = ITEMS.filter((i) => i.of.includes(subject));
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
