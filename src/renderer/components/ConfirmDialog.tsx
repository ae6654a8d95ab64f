import type { ReactNode } from 'react';
import { useLayoutEffect, useRef } from 'react';

/** A modal confirmation; Enter confirms, Escape cancels. */
export function ConfirmDialog({ title, body, confirmLabel, cancelLabel = 'Keep', danger, onConfirm, onCancel }: { title: string; body: ReactNode; confirmLabel: string; cancelLabel?: string | null; danger?: boolean; onConfirm(): void; onCancel(): void }) {
  const ok = useRef<HTMLButtonElement>(null);
  // A layout effect: Escape works from the moment the dialog is in the page (a plain effect runs after paint, and
  // an Escape pressed in between went to the page instead; CI saw the shortcuts list stay open that way).
  useLayoutEffect(() => {
    ok.current?.focus();
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') {
        e.stopPropagation();
        onCancel();
      }
    };
    window.addEventListener('keydown', onKey, true);
    return () => window.removeEventListener('keydown', onKey, true);
  }, [onCancel]);
  return (
    <div className="modal-backdrop" onClick={onCancel}>
      <div className="modal" role="dialog" aria-modal="true" aria-label={title} onClick={(e) => e.stopPropagation()}>
        <h3>{title}</h3>
        <div className="modal-body">{body}</div>
        <div className="modal-actions">
          {cancelLabel && <button onClick={onCancel}>{cancelLabel}</button>}
          <button ref={ok} className={danger ? 'danger' : 'primary'} onClick={onConfirm}>
            {confirmLabel}
          </button>
        </div>
      </div>
    </div>
  );
}

/** A modal that only informs (shortcuts, the guide, About): one Close button; Escape and a click outside close it. */
export function InfoDialog({ title, onClose, children }: { title: string; onClose(): void; children: ReactNode }) {
  return <ConfirmDialog title={title} confirmLabel="Close" cancelLabel={null} onConfirm={onClose} onCancel={onClose} body={children} />;
}
