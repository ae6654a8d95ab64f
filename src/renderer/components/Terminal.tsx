import { useEffect, useRef } from 'react';
import { Terminal as XTerm } from '@xterm/xterm';
import { FitAddon } from '@xterm/addon-fit';
import { ptyBuffer } from '../state/live';
import { useSettings } from '../state/settings';

/**
 * The workload's terminal: output from the engine's pty (`pty.data`), batched to one write per animation frame.
 * Read-only: the contract has no input channel to the pty yet.
 */
export function WorkloadTerminal() {
  const ref = useRef<HTMLDivElement>(null);
  const theme = useSettings((s) => s.theme);
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
    term.write(ptyBuffer.text());
    let pending: string[] = [];
    let raf = 0;
    const flush = () => {
      raf = 0;
      if (pending.length) term.write(pending.join(''));
      pending = [];
    };
    const unsub = ptyBuffer.subscribe((d) => {
      pending.push(d);
      if (!raf) raf = requestAnimationFrame(flush);
    });
    const ro = new ResizeObserver(refit);
    ro.observe(el);
    return () => {
      unsub();
      ro.disconnect();
      if (raf) cancelAnimationFrame(raf);
      term.dispose();
    };
  }, [theme]);
  return <div ref={ref} className="terminal" data-testid="terminal" />;
}
