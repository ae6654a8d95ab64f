import { useEffect, useRef, useState } from 'react';
import type { AnalysisResult, Selector } from '../../../shared/analysis';
import { api } from '../../api/client';

export interface AnalysisQuery {
  overhead_w: number | null;
  selector: Selector;
  slowdown_budget: number;
  weight: number;
  include_unenforced: boolean;
  /** Price per MWh and grid g CO2e/kWh the page prices the energy with; null: no cost and carbon. */
  tariff: PageTariff | null;
}

/** The Results page's tariff: the constants of the planner's (a CSV tariff is the CLI's `--tariff`). */
export interface PageTariff {
  price_per_mwh?: number;
  carbon_g_per_kwh?: number;
  currency: string;
}

/** What is analysed: a recorded sweep, or an imported dataset's segments with cap and units (as `analyze --dataset`). */
export type AnalysisKind = 'sweep' | 'dataset';

export interface AnalysisState {
  result: AnalysisResult | null;
  /** The `kind:id` the result (or error) belongs to: a result of the previous target is never shown as this one's. */
  key: string | null;
  error: string | null;
  /** A query is waiting for its debounce or its answer (the previous result stays shown meanwhile). */
  pending: boolean;
}

/** The engine's analysis of one target: analyzeSweep, or analyzeDataset's sweep part (the CLI's compare --dataset). */
async function analyse(kind: AnalysisKind, id: number, q: AnalysisQuery): Promise<AnalysisResult> {
  const opts = { ...(q.overhead_w != null ? { overhead_w: q.overhead_w } : {}), selector: q.selector, slowdown_budget: q.slowdown_budget, weight: q.weight, include_unenforced: q.include_unenforced, ...(q.tariff ? { tariff: q.tariff } : {}) };
  if (kind === 'sweep') return api.analyzeSweep({ sweep_id: id, ...opts });
  const a = await api.analyzeDataset({ dataset_id: id, ...opts });
  if (!a.sweep) throw new Error(`dataset ${id} has no segment with a cap and work units to analyse`);
  return a.sweep;
}

/**
 * The engine's analysis of one sweep or dataset, re-queried when the options change (debounced, so dragging the
 * overhead slider asks once it rests) or when `revision` moves (more runs finished). Late answers to older
 * queries are dropped.
 */
export function useAnalysis(id: number | null, q: AnalysisQuery, revision: unknown, kind: AnalysisKind = 'sweep', debounceMs = 250): AnalysisState {
  const [state, setState] = useState<AnalysisState>({ result: null, key: null, error: null, pending: false });
  const seq = useRef(0);
  const lastKey = useRef<string | null>(null);
  const { overhead_w, selector, slowdown_budget, weight, include_unenforced } = q;
  // The tariff as primitives, so a new but equal object asks nothing again.
  const price = q.tariff?.price_per_mwh;
  const carbon = q.tariff?.carbon_g_per_kwh;
  const currency = q.tariff?.currency;
  useEffect(() => {
    if (id == null) {
      setState({ result: null, key: null, error: null, pending: false });
      return;
    }
    const my = ++seq.current;
    const key = `${kind}:${id}`;
    // A different target: drop the old result at once and ask without waiting.
    const switched = lastKey.current !== key;
    lastKey.current = key;
    setState((s) => (switched ? { result: null, key, error: null, pending: true } : { ...s, pending: true }));
    const timer = setTimeout(
      () => {
        const tariff = price === undefined && carbon === undefined ? null : { price_per_mwh: price, carbon_g_per_kwh: carbon, currency: currency ?? 'USD' };
        analyse(kind, id, { overhead_w, selector, slowdown_budget, weight, include_unenforced, tariff }).then(
          (result) => my === seq.current && setState({ result, key, error: null, pending: false }),
          (e) => my === seq.current && setState((s) => ({ ...s, key, error: (e as Error).message, pending: false })),
        );
      },
      switched ? 0 : debounceMs,
    );
    return () => clearTimeout(timer);
  }, [id, kind, overhead_w, selector, slowdown_budget, weight, include_unenforced, price, carbon, currency, revision, debounceMs]);
  return state;
}
