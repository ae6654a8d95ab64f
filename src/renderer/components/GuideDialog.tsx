import { useEffect, useMemo, useRef } from 'react';
import guideText from '../../../docs/user-guide.md?raw';
import { inline, parseGuide, type GuideBlock } from '../lib/guide';
import { usePrefs } from '../state/prefs';
import { InfoDialog } from './ConfirmDialog';

function Inline({ text }: { text: string }) {
  return (
    <>
      {inline(text).map((r, i) => (r.kind === 'code' ? <code key={i}>{r.text}</code> : r.kind === 'bold' ? <strong key={i}>{r.text}</strong> : <span key={i}>{r.text}</span>))}
    </>
  );
}

function Block({ b, section }: { b: GuideBlock; section: string }) {
  switch (b.kind) {
    case 'h1':
    case 'h2':
      return (
        <h4 id={`guide-${b.id}`} className={b.id === section ? 'guide-target' : ''}>
          {b.text}
        </h4>
      );
    case 'p':
      return (
        <p>
          <Inline text={b.text} />
        </p>
      );
    case 'ul':
      return (
        <ul>
          {b.items.map((it, k) => (
            <li key={k}>
              <Inline text={it} />
            </li>
          ))}
        </ul>
      );
  }
}

/** The user guide (docs/user-guide.md, bundled), opened at the section for the page it was asked from. */
export function GuideDialog({ section, onClose }: { section: string; onClose(): void }) {
  const blocks = useMemo(() => parseGuide(guideText), []);
  const ref = useRef<HTMLDivElement>(null);
  const resetHints = usePrefs((p) => p.resetHints);
  useEffect(() => {
    ref.current?.querySelector(`[id="guide-${section}"]`)?.scrollIntoView({ block: 'start' });
  }, [section]);
  return (
    <InfoDialog title="User guide" onClose={onClose}>
      <div className="guide" ref={ref} data-testid="guide" data-section={section}>
        {blocks.map((b, i) => (
          <Block key={i} b={b} section={section} />
        ))}
        <p className="muted small">
          The full guide and the CLI reference are in docs/user-guide.md and README.md.{' '}
          <button className="link" onClick={resetHints} data-testid="reset-hints">
            Show the page hints again
          </button>
        </p>
      </div>
    </InfoDialog>
  );
}
