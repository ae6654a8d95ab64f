import type { DatasetRecord, Segment } from '../../../shared/dataset';
import { api } from '../../api/client';
import { fmt } from '../../lib/format';
import { toastError } from '../../state/toasts';
import { OverlayPick } from '../overlay/OverlayPicks';

type Editable = 'label' | 'workload' | 'cap_w' | 'units' | 'units_in_window';

/** A dataset's segments; workload, cap and units are typed in place (saved on blur). */
export function SegmentsTable({ dataset, t0, onChange }: { dataset: DatasetRecord; t0: number; onChange: (s: Segment[]) => void }) {
  async function save(s: Segment, field: Editable, text: string) {
    const numeric = field === 'cap_w' || field === 'units_in_window';
    const value = text.trim() === '' ? null : numeric ? Number(text) : text.trim();
    if (numeric && value !== null && !Number.isFinite(value as number)) return toastError(new Error(`${field} must be a number`));
    if (value === s[field]) return;
    try {
      onChange((await api.saveSegment({ dataset_id: dataset.id, segment_id: s.id, [field]: value })).segments);
    } catch (e) {
      toastError(e);
    }
  }
  async function remove(s: Segment) {
    try {
      onChange((await api.saveSegment({ dataset_id: dataset.id, segment_id: s.id, delete: true })).segments);
    } catch (e) {
      toastError(e);
    }
  }
  const cell = (s: Segment, field: Editable, width: number) => (
    <input
      defaultValue={s[field] === null ? '' : String(s[field])}
      style={{ width }}
      aria-label={`${field} of segment ${s.id}`}
      onBlur={(e) => void save(s, field, e.target.value)}
      data-testid={`segment-${s.id}-${field}`}
    />
  );
  return (
    <table className="table" data-testid="segments-table">
      <thead>
        <tr>
          <th title="tick to overlay">Overlay</th>
          <th>#</th>
          <th>Label</th>
          <th>Origin</th>
          <th>From s</th>
          <th>Length s</th>
          <th>Workload</th>
          <th>Cap W</th>
          <th>Units</th>
          <th>Work done</th>
          <th />
        </tr>
      </thead>
      <tbody>
        {dataset.segments.map((s) => (
          <tr key={`${s.id}-${s.start}-${s.end}`} data-testid="segment-row">
            <td>
              <OverlayPick refTo={{ kind: 'segment', id: s.id }} label={`segment ${s.id}${s.label ? ` ${s.label}` : ''}`} />
            </td>
            <td>{s.id}</td>
            <td>{cell(s, 'label', 160)}</td>
            <td>{s.origin}</td>
            <td>{fmt(s.start - t0, 1)}</td>
            <td>{fmt(s.end - s.start, 1)}</td>
            <td>{cell(s, 'workload', 110)}</td>
            <td>{cell(s, 'cap_w', 60)}</td>
            <td>{cell(s, 'units', 70)}</td>
            <td>{cell(s, 'units_in_window', 90)}</td>
            <td>
              <button className="danger small" onClick={() => void remove(s)}>
                Remove
              </button>
            </td>
          </tr>
        ))}
        {dataset.segments.length === 0 && (
          <tr>
            <td colSpan={11} className="muted">
              No segments: brush one on the trace.
            </td>
          </tr>
        )}
      </tbody>
    </table>
  );
}
