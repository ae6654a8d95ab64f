import type { Db } from '../store/db';
import { loadSweepInput, type LoadedSweep } from './load';
import { analyzeSweep } from '../../../core/analysis/analyze';
import type { AnalysisResult } from '../../../shared/analysis';
import { withCost, type CostedAnalysisOptions } from './cost';
import { adaptiveSummary } from '../../../core/sweep/adaptive-summary';
import { getSweep, runsOfSweep } from '../store/sweeps';

/**
 * Loads a stored sweep and analyses it; the loader's warnings come first in the result's. With a tariff, its cost and
 * carbon too. Throws LoadError.
 */
export function analyzeStoredSweep(db: Db, sweepId: number, opts: CostedAnalysisOptions): { loaded: LoadedSweep; result: AnalysisResult } {
  const { tariff, ...analysis } = opts;
  const loaded = loadSweepInput(db, sweepId);
  const plan = getSweep(db, sweepId)?.plan;
  // The answer is judged as the sweep's sequential rule judged it while deciding what to repeat.
  const pool_single = analysis.pool_single ?? plan?.adaptive?.repetitions?.pool_single ?? false;
  const result = analyzeSweep(loaded.input, { ...analysis, adaptive: loaded.adaptive, pool_single });
  result.warnings.unshift(...loaded.warnings);
  // An adaptive plan's results say what it spent and what the same plan with fixed figures would have.
  const summary = plan ? adaptiveSummary(plan, runsOfSweep(db, sweepId)) : null;
  if (summary) result.adaptive = summary;
  return { loaded, result: withCost(result, tariff) };
}
