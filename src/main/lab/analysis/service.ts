// The analysis slice (src/shared/api/analysis.ts): stored sweeps and sources (runs, dataset segments) analysed,
// the best caps of sweeps, energy over a time range, and sources overlaid on one time axis.
import type { MethodInput, MethodOutput, SliceApi } from '../../../shared/api';
import { analyzeSweep } from '../../../core/analysis/analyze';
import { Source } from '../../../shared/source';
import type { EngineContext } from '../engine-context';
import { analyzeStoredSweep } from './analyze-stored';
import { BestCapCache } from './best-caps';
import { withCost } from './cost';
import { datasetEnergy } from './dataset-energy';
import { energyInRange } from './load';
import { overlayTraces } from './overlay';
import { loadSources } from './sources';

export class AnalysisService implements SliceApi<'analysis'> {
  private bestCapCache = new BestCapCache();

  constructor(private readonly ctx: EngineContext) {}

  async bestCaps(input: MethodInput<'bestCaps'>): Promise<MethodOutput<'bestCaps'>> {
    return input.sweep_ids.map((id) => this.bestCapCache.of(this.ctx.db, id));
  }

  async analyzeSweep(input: MethodInput<'analyzeSweep'>): Promise<MethodOutput<'analyzeSweep'>> {
    const { sweep_id, ...opts } = input;
    return analyzeStoredSweep(this.ctx.db, sweep_id, { ...opts, overhead_w: opts.overhead_w ?? null }).result;
  }

  async analyzeSources(input: MethodInput<'analyzeSources'>): Promise<MethodOutput<'analyzeSources'>> {
    const { sources, name, tariff, ...opts } = input;
    return withCost(analyzeSweep(loadSources(this.ctx.db, sources.map((s) => Source.parse(s)), { name }), { ...opts, overhead_w: opts.overhead_w ?? null }), tariff);
  }

  async energyInRange(input: MethodInput<'energyInRange'>): Promise<MethodOutput<'energyInRange'>> {
    if (input.dataset_id !== undefined) return datasetEnergy(this.ctx.db, input.dataset_id, input.from, input.to, input.device_index);
    return energyInRange(this.ctx.db, input.from, input.to, input.device_index);
  }

  async overlayTraces(input: MethodInput<'overlayTraces'>): Promise<MethodOutput<'overlayTraces'>> {
    return overlayTraces(this.ctx.db, { ...input, sources: input.sources.map((s) => Source.parse(s)) });
  }
}
