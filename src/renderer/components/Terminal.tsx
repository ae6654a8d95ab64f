import { useEffect, useRef, useState } from 'react';
import { Terminal as XTerm } from '@xterm/xterm';
import { FitAddon } from '@xterm/addon-fit';
import { api } from '../api/client';
import { createPtyWriter, type PtyInputState, type PtyWriter } from '../lib/pty-input';
import { ptyBuffer } from '../state/live';
import { useSettings } from '../state/settings';
import { usePrefs } from '../state/prefs';
import { ProtocolLineFilter } from '../lib/pty-filter';

const INPUT_TEXT: Record<PtyInputState, string> = {
  idle: 'Click the terminal and type: keystrokes go to the running workload (a sudo password prompt, for instance).',
  sending: 'sending…',
  delivered: 'Input delivered to the workload.',
  'no-workload': 'Not delivered: no workload process is running right now (between runs).',
  error: 'Input failed',
};

/**
 * The workload's terminal: output from the engine's pty (`pty.data`), batched to one write per animation frame.
 * Writable while `sweepId` names a running sweep: keystrokes go through `writePty`, in order; read-only otherwise.
 */
export function WorkloadTerminal({ sweepId }: { sweepId: number | null }) {
  const ref = useRef<HTMLDivElement>(null);
  const termRef = useRef<XTerm | null>(null);
  const writerRef = useRef<PtyWriter | null>(null);
  const theme = useSettings((s) => s.theme);
  const [input, setInput] = useState<{ state: PtyInputState; error?: string }>({ state: 'idle' });
  const showProtocol = usePrefs((p) => p.showProtocol);
  const setPrefs = usePrefs((p) => p.set);
  const [hidden, setHidden] = useState(0);

  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const dark = theme === 'dark';
    const term = new XTerm({
      fontSize: 12,
      fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace',
      scrollback: 5000,
      disableStdin: true,
      convertEol: true,
      theme: dark ? { background: '#0d1117', foreground: '#c9d1d9' } : { background: '#ffffff', foreground: '#24292f', cursor: '#24292f', selectionBackground: '#c8e1ff' },
    });
    termRef.current = term;
    const fit = new FitAddon();
    term.loadAddon(fit);
    term.open(el);
    const refit = () => {
      try {
        if (el.offsetParent !== null) fit.fit();
      } catch {
        /* not laid out yet */
      }
    };
    refit();
    // The workload's own output; CapLab's protocol lines are hidden (or dimmed) by the filter.
    const filter = new ProtocolLineFilter(showProtocol);
    term.write(filter.push(ptyBuffer.text()));
    setHidden(filter.hidden);
    let pending: string[] = [];
    let raf = 0;
    const flush = () => {
      raf = 0;
      if (pending.length) term.write(filter.push(pending.join('')));
      pending = [];
      setHidden(filter.hidden);
    };
    const unsub = ptyBuffer.subscribe((d) => {
      pending.push(d);
      if (!raf) raf = requestAnimationFrame(flush);
    });
    // Keystrokes reach onData only while stdin is enabled (a run is active); the writer decides where they go.
    const typed = term.onData((d) => writerRef.current?.write(d));
    const ro = new ResizeObserver(refit);
    ro.observe(el);
    return () => {
      unsub();
      typed.dispose();
      ro.disconnect();
      if (raf) cancelAnimationFrame(raf);
      term.dispose();
      termRef.current = null;
    };
  }, [theme, showProtocol]);

  // Input follows the running sweep: one ordered writer per sweep, none (read-only) without one.
  useEffect(() => {
    setInput({ state: 'idle' });
    const writer = sweepId == null ? null : createPtyWriter((data) => api.writePty({ sweep_id: sweepId, data }), (state, error) => setInput({ state, error }));
    writerRef.current = writer;
    return () => {
      writer?.close();
      if (writerRef.current === writer) writerRef.current = null;
    };
  }, [sweepId]);

  useEffect(() => {
    const term = termRef.current;
    if (!term) return;
    term.options.disableStdin = sweepId == null;
    term.options.cursorBlink = sweepId != null;
  }, [sweepId, theme, showProtocol]);

  const writable = sweepId != null;
  return (
    <>
      <div ref={ref} className={`terminal ${writable ? 'writable' : 'read-only'}`} data-testid="terminal" data-writable={writable} />
      <label className="check small" title="CapLab's @caplab lines: the workload's steps and phases as CapLab reads them">
        <input type="checkbox" checked={showProtocol} data-testid="show-protocol" onChange={(e) => setPrefs({ showProtocol: e.target.checked })} />
        <span>
          show protocol lines{!showProtocol && hidden > 0 ? <span className="muted" data-testid="protocol-hidden"> ({hidden} hidden)</span> : null}
        </span>
      </label>
      <p className={`small terminal-input ${input.state === 'error' ? 'error' : 'muted'}`} data-testid="terminal-input" data-state={writable ? input.state : 'read-only'}>
        {writable ? (input.state === 'error' ? `${INPUT_TEXT.error}: ${input.error ?? ''}` : INPUT_TEXT[input.state]) : 'Read-only: no run is active.'}
      </p>
    </>
  );
}
