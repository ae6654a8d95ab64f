// Public surface of the analysis engine (pure computation; schemas in src/shared/analysis.ts).
export { analyzeSweep, DEFAULT_OVERHEAD_W } from './analyze';
export { windowEnergy, nodeEnergy, type EnergyOptions } from './energy';
export { mser, detectSteadyState, type MserResult, type SteadyOptions } from './steady-state';
export { describe, tQuantile, tCdf, welchTest, linearFit, trend, percentile, mean, sampleSd, SINGLE_REPETITION_NOTE } from './stats';
export { checkEnforcement, combineEnforcement, type EnforcementOptions, type DevicePower } from './enforcement';
export { selectOptimum, type OptimumPoint, type OptimumRun, type OptimumOptions } from './optimum';
export { overheadSensitivity, pointsAtOverhead, type OverheadPoint, type OverheadRun, type SensitivityOptions } from './sensitivity';
export { paretoFront, paretoFrontIndices, type ParetoInput } from './pareto';
export { windowClocks, combineClocks } from './clocks';
export { proposeCaps, snapCap, GOLDEN, type RefineInput } from './refine';
export { compareSweeps, type ComparedSweep } from './compare';
export { measureRun, runSteadyState, unitsInWindow, type RunOptions } from './run';
export type { PowerSample } from './series';
