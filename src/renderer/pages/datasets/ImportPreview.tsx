import { useEffect, useRef, useState } from 'react';
import type { ImportFormat } from '../../../shared/dataset';
import { channelWords, type ImportPreview, type PreviewAction, type PreviewFile } from '../../../shared/import-preview';
import { importerList } from '../../../shared/importers';
import { api } from '../../api/client';
import { fmt } from '../../lib/format';

/** The options an import is steered with: `caplab import`'s --format, --tz and --fields. */
export interface ImportChoice {
  format: ImportFormat | 'auto';
  /** Empty: the engine's machine's zone. */
  tz: string;
  /** Comma-separated --query-gpu list; empty: none. */
  fields: string;
}

export const fieldList = (text: string): string[] | undefined => {
  const f = text.split(',').map((s) => s.trim()).filter(Boolean);
  return f.length ? f : undefined;
};

/** Times as instants in UTC: the zone picker visibly moves naive timestamps, which a local display would hide. */
function timeText(t: number, clock: PreviewFile['clock']): string {
  if (clock === 'relative') return `${fmt(t, 3)} s`;
  return new Date(t * 1000).toISOString().replace('T', ' ').replace('Z', ' UTC');
}

const zones = (() => {
  try {
    return Intl.supportedValuesOf('timeZone');
  } catch {
    return [];
  }
})();

/** Text typed into the zone and field inputs is previewed once the typing pauses. */
const TYPING_MS = 350;

/**
 * The preview of an import before anything is written: format, time zone and field list pickers, and each file's
 * first rows with the columns CapLab recognised, read by the engine (previewImport) with the same format modules.
 */
export function ImportPreviewPanel({ paths, onImport, onCancel }: { paths: string[]; onImport: (c: ImportChoice) => void; onCancel: () => void }) {
  const [choice, setChoice] = useState<ImportChoice>({ format: 'auto', tz: '', fields: '' });
  const [typed, setTyped] = useState({ tz: '', fields: '' });
  const [preview, setPreview] = useState<ImportPreview | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(true);
  const seq = useRef(0);
  const controls = { pick_format: useRef<HTMLSelectElement>(null), set_tz: useRef<HTMLInputElement>(null), set_fields: useRef<HTMLInputElement>(null) };

  useEffect(() => {
    const t = setTimeout(() => setChoice((c) => (c.tz === typed.tz && c.fields === typed.fields ? c : { ...c, ...typed })), TYPING_MS);
    return () => clearTimeout(t);
  }, [typed]);

  useEffect(() => {
    const mine = ++seq.current;
    setBusy(true);
    api
      .previewImport({ paths, format: choice.format, tz: choice.tz.trim() || undefined, fields: fieldList(choice.fields), rows: 10 })
      .then(
        (p) => {
          if (mine !== seq.current) return;
          setPreview(p);
          setError(null);
        },
        (e: unknown) => {
          if (mine !== seq.current) return;
          setError(e instanceof Error ? e.message : String(e));
        },
      )
      .finally(() => mine === seq.current && setBusy(false));
  }, [paths, choice]);

  const detected = preview?.files.find((f) => f.detected !== null)?.detected ?? null;
  const wants = new Set(preview?.files.flatMap((f) => f.issues.filter((i) => i.level === 'error').map((i) => i.action)) ?? []);
  const go = (a: PreviewAction) => controls[a].current?.focus();
  // Import takes exactly what was previewed: typing not yet previewed holds it back.
  const settled = !busy && typed.tz === choice.tz && typed.fields === choice.fields;

  return (
    <div className="card import-preview" data-testid="import-preview" aria-busy={busy}>
      <div className="row wrap import-options">
        <label className="field">
          <span>Format</span>
          <select
            ref={controls.pick_format}
            data-testid="import-format"
            aria-invalid={wants.has('pick_format') ? true : undefined}
            value={choice.format}
            onChange={(e) => setChoice((c) => ({ ...c, format: e.target.value as ImportChoice['format'] }))}
          >
            <option value="auto">{detected ? `auto (detected: ${detected})` : 'auto (nothing detected)'}</option>
            {importerList.map((i) => (
              <option key={i.id} value={i.id}>
                {i.id} · {i.label}
              </option>
            ))}
          </select>
        </label>
        <label className="field" title="The zone timestamps written without one are read in">
          <span>Time zone</span>
          <input
            ref={controls.set_tz}
            data-testid="import-tz"
            list="import-zones"
            placeholder={preview ? `${preview.zone} (this machine's)` : ''}
            aria-invalid={error?.includes('time zone') ? true : undefined}
            value={typed.tz}
            onChange={(e) => setTyped((t) => ({ ...t, tz: e.target.value }))}
          />
          <datalist id="import-zones">
            {zones.map((z) => (
              <option key={z} value={z} />
            ))}
          </datalist>
        </label>
        <label className="field wide" title="For an nvidia-smi log written without its header (--format=csv,noheader): the --query-gpu list, in order">
          <span>Field list (headerless nvidia-smi logs)</span>
          <input
            ref={controls.set_fields}
            data-testid="import-fields"
            placeholder="timestamp,index,power.draw,clocks.sm"
            aria-invalid={wants.has('set_fields') ? true : undefined}
            value={typed.fields}
            onChange={(e) => setTyped((t) => ({ ...t, fields: e.target.value }))}
          />
        </label>
        <span className="grow" />
        <button className="primary" data-testid="import-go" disabled={!settled || !preview?.ready || error !== null} onClick={() => onImport(choice)}>
          Import
        </button>
        <button data-testid="import-cancel" onClick={onCancel}>
          Cancel
        </button>
      </div>
      {error && (
        <p className="error" role="alert" data-testid="import-preview-error">
          {error}
        </p>
      )}
      {busy && !preview && <p className="muted">Reading the first rows…</p>}
      {preview?.files.map((f) => <FilePreview key={f.file} f={f} onAction={go} />)}
      {preview && preview.files_not_previewed > 0 && <p className="muted">and {preview.files_not_previewed} more file(s), not previewed.</p>}
    </div>
  );
}

const actionWords: Record<PreviewAction, string> = { pick_format: 'Pick a format', set_fields: 'Set the field list', set_tz: 'Set the time zone' };

function FilePreview({ f, onAction }: { f: PreviewFile; onAction: (a: PreviewAction) => void }) {
  const devices = new Map(f.devices.map((d) => [d.key, d]));
  return (
    <section className="import-file" data-testid="preview-file">
      <h4>
        {f.file} <span className="muted small">{f.bytes.toLocaleString('en')} bytes</span>{' '}
        <span className="badge" data-testid="preview-format">
          {f.format ? `read as ${f.format}` : 'no format'}
        </span>{' '}
        <span className="muted small" data-testid="preview-detected">
          {f.detected ? `detected: ${f.detected}` : 'detected: none'}
          {f.candidates.length > 1 ? ` (also matches ${f.candidates.slice(1).join(', ')})` : ''}
        </span>
      </h4>
      {f.issues.length > 0 && (
        <ul className="import-issues" data-testid="preview-issues">
          {f.issues.map((i, k) => (
            <li key={k} className={`issue-${i.level}`}>
              {i.message}{' '}
              {i.action && (
                <button className="link" onClick={() => onAction(i.action!)}>
                  {actionWords[i.action]}
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      {f.warnings.length > 0 && (
        <ul className="warnings" data-testid="preview-warnings">
          {f.warnings.map((w) => (
            <li key={w}>{w}</li>
          ))}
        </ul>
      )}
      {f.format && f.rows.length > 0 && (
        <div className="row wrap import-mapping">
          <table className="table" data-testid="preview-columns">
            <thead>
              <tr>
                <th>In the file</th>
                <th>CapLab reads it as</th>
                <th>Unit</th>
              </tr>
            </thead>
            <tbody>
              <tr>
                <td>{f.clock === 'relative' ? '(no timestamps)' : 'timestamps'}</td>
                <td>time{f.clock === 'relative' ? ', seconds from the start' : f.zone_applies ? ', wall clock in the chosen zone' : ', with their own zone'}</td>
                <td>{f.clock === 'relative' ? 's' : ''}</td>
              </tr>
              <tr>
                <td>device identity</td>
                <td>
                  {f.devices.length} device(s): {f.devices.map((d) => `${d.kind} ${d.index ?? d.key}${d.name ? ` (${d.name})` : ''}`).join(', ')}
                </td>
                <td />
              </tr>
              {f.columns.map((c) => (
                <tr key={c.source}>
                  <td>{c.source}</td>
                  <td>
                    {channelWords[c.channel]?.label ?? c.channel}
                    {c.note && <span className="muted small"> · {c.note}</span>}
                  </td>
                  <td>{c.unit}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {f.rows.length > 0 && (
        <div className="table-scroll">
          <table className="table nowrap" data-testid="preview-rows">
            <thead>
              <tr>
                <th>time{f.clock === 'relative' ? '' : ' (UTC)'}</th>
                <th>device</th>
                {f.channels.map((c) => (
                  <th key={c}>
                    {channelWords[c]?.label ?? c} ({channelWords[c]?.unit ?? ''})
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {f.rows.map((r, k) => {
                const d = devices.get(r.device);
                return (
                  <tr key={k}>
                    <td>{timeText(r.t, f.clock)}</td>
                    <td>{d ? `${d.kind} ${d.index ?? d.key}` : r.device}</td>
                    {f.channels.map((c) => (
                      <td key={c}>{r.values[c] == null ? '–' : r.values[c]!.toLocaleString('en-US', { maximumFractionDigits: 3 })}</td>
                    ))}
                  </tr>
                );
              })}
            </tbody>
          </table>
          <p className="muted small">
            First {f.rows.length} of {f.rows_read.toLocaleString('en')} reading(s) in the part read ({f.rows_skipped.toLocaleString('en')} skipped); nothing is written until Import.
          </p>
        </div>
      )}
      {f.head.length > 0 && (
        <details open={f.format === null || f.rows.length === 0}>
          <summary>The file’s first lines</summary>
          <pre className="import-head" data-testid="preview-head">
            {f.head.join('\n')}
          </pre>
        </details>
      )}
    </section>
  );
}
