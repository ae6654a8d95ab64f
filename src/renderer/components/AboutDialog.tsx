import { useEffect, useState } from 'react';
import type { MethodOutput } from '../../shared/api';
import { api, transportKind } from '../api/client';
import { InfoDialog } from './ConfirmDialog';

/** Version, the commit it runs from and where its data lives: what a bug report or a backup needs. */
export function AboutDialog({ onClose }: { onClose(): void }) {
  const [about, setAbout] = useState<MethodOutput<'about'> | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    api.about({}).then(setAbout, (e) => setError((e as Error).message));
  }, []);
  return (
    <InfoDialog title="About CapLab" onClose={onClose}>
      <div data-testid="about">
        <p>CapLab finds the GPU power limit with the most work per joule, and what it costs in throughput.</p>
        {error && <p className="error">{error}</p>}
        {!about && !error && <p className="muted">reading…</p>}
        {about && (
          <dl className="facts about-facts">
            <dt>Version</dt>
            <dd data-testid="about-version">{about.version}</dd>
            <dt>Commit</dt>
            <dd data-testid="about-commit">{about.commit ?? 'unknown (not run from a git checkout)'}</dd>
            <dt>Data folder</dt>
            <dd data-testid="about-data-dir">
              <code>{about.data_dir}</code>
            </dd>
            <dt>Database</dt>
            <dd data-testid="about-db">
              <code>{about.db_path}</code>
            </dd>
            <dt>Engine</dt>
            <dd>
              {transportKind() === 'ipc' ? 'desktop app' : 'browser host'} on {about.host}, Node.js {about.node}
            </dd>
          </dl>
        )}
      </div>
    </InfoDialog>
  );
}
