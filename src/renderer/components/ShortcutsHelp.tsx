import { SHORTCUTS } from '../lib/commands';
import { InfoDialog } from './ConfirmDialog';

export function ShortcutsHelp({ onClose }: { onClose(): void }) {
  return (
    <InfoDialog title="Keyboard shortcuts" onClose={onClose}>
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
    </InfoDialog>
  );
}
