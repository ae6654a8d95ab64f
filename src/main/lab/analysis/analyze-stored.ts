import type { Db } from '../store/db';
import { loadSweepInput, type LoadedSweep } from './load';
import { analyzeSweep } from '../../../core/analysis/analyze';
import type { AnalysisOptionsInput, AnalysisResult } from '../../../shared/analysis';
import { adaptiveSummary } from '../../../core/sweep/adaptive-summary';
import { getSweep, runsOfSweep } from '../store/sweeps';

/** Loads a stored sweep and analyses it; the loader's warnings come first in the result's. Throws LoadError. */
export function analyzeStoredSweep(db: Db, sweepId: number, opts: Omit<AnalysisOptionsInput, 'adaptive'>): { loaded: LoadedSweep; result: AnalysisResult } {
  const loaded = loadSweepInput(db, sweepId);
  const result = analyzeSweep(loaded.input, { ...opts, adaptive: loaded.adaptive });
  result.warnings.unshift(...loaded.warnings);
  // An adaptive plan's results say what it spent and what the same plan with fixed figures would have.
  const plan = getSweep(db, sweepId)?.plan;
  const summary = plan ? adaptiveSummary(plan, runsOfSweep(db, sweepId)) : null;
  if (summary) result.adaptive = summary;
  return { loaded, result };
}
