// A past tuning session's end report, as `caplab tune` printed it (stored with the session's sweep record).
export function TuneReport({ text, open = false }: { text: string | null; open?: boolean }) {
  if (!text) return null;
  return (
    <details className="tune-report" open={open} data-testid="tune-report">
      <summary className="small">Tuning report</summary>
      <pre className="small">{text}</pre>
    </details>
  );
}
