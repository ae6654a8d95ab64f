import { useEffect, useRef, useState } from 'react';
import type { AnalysisResult, Selector } from '../../../shared/analysis';
import { api } from '../../api/client';

export interface AnalysisQuery {
  overhead_w: number | null;
  selector: Selector;
  slowdown_budget: number;
  weight: number;
  include_unenforced: boolean;
}

export interface AnalysisState {
  result: AnalysisResult | null;
  error: string | null;
  /** A query is waiting for its debounce or its answer (the previous result stays shown meanwhile). */
  pending: boolean;
}

/**
 * The engine's analysis of one sweep (`analyzeSweep`), re-queried when the options change (debounced, so dragging
 * the overhead slider asks once it rests) or when `revision` moves (more runs finished). Late answers to older
 * queries are dropped.
 */
export function useAnalysis(sweepId: number | null, q: AnalysisQuery, revision: unknown, debounceMs = 250): AnalysisState {
  const [state, setState] = useState<AnalysisState>({ result: null, error: null, pending: false });
  const seq = useRef(0);
  const lastSweep = useRef<number | null>(null);
  const { overhead_w, selector, slowdown_budget, weight, include_unenforced } = q;
  useEffect(() => {
    if (sweepId == null) {
      setState({ result: null, error: null, pending: false });
      return;
    }
    const my = ++seq.current;
    // A different sweep: drop the old result at once and ask without waiting.
    const switched = lastSweep.current !== sweepId;
    lastSweep.current = sweepId;
    setState((s) => (switched ? { result: null, error: null, pending: true } : { ...s, pending: true }));
    const timer = setTimeout(
      () => {
        api
          .analyzeSweep({ sweep_id: sweepId, ...(overhead_w != null ? { overhead_w } : {}), selector, slowdown_budget, weight, include_unenforced })
          .then(
            (result) => my === seq.current && setState({ result, error: null, pending: false }),
            (e) => my === seq.current && setState((s) => ({ ...s, error: (e as Error).message, pending: false })),
          );
      },
      switched ? 0 : debounceMs,
    );
    return () => clearTimeout(timer);
  }, [sweepId, overhead_w, selector, slowdown_budget, weight, include_unenforced, revision, debounceMs]);
  return state;
}
