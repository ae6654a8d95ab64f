import type { Db } from '../store/db';
import { loadSweepInput, type LoadedSweep } from './load';
import { analyzeSweep } from '../../../core/analysis/analyze';
import type { AnalysisOptionsInput, AnalysisResult } from '../../../shared/analysis';

/** Loads a stored sweep and analyses it; the loader's warnings come first in the result's. Throws LoadError. */
export function analyzeStoredSweep(db: Db, sweepId: number, opts: Omit<AnalysisOptionsInput, 'adaptive'>): { loaded: LoadedSweep; result: AnalysisResult } {
  const loaded = loadSweepInput(db, sweepId);
  const result = analyzeSweep(loaded.input, { ...opts, adaptive: loaded.adaptive });
  result.warnings.unshift(...loaded.warnings);
  return { loaded, result };
}
