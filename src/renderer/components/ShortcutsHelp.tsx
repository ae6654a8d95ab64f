import { SHORTCUTS } from '../lib/commands';
import { ConfirmDialog } from './ConfirmDialog';

export function ShortcutsHelp({ onClose }: { onClose(): void }) {
  return (
    <ConfirmDialog
      title="Keyboard shortcuts"
      confirmLabel="Close"
      cancelLabel={null}
      onConfirm={onClose}
      onCancel={onClose}
      body={
        <table className="table small">
          <tbody>
            {SHORTCUTS.map((s) => (
              <tr key={s.command}>
                <td>
                  <kbd>{s.keys}</kbd>
                </td>
                <td>{s.label}</td>
              </tr>
            ))}
          </tbody>
        </table>
      }
    />
  );
}
