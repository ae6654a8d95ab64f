import { FacilityConfig, type FacilityConfigInput } from '../../../src/shared/facility';
import type { ScenarioInput } from '../../../src/core/facility/model';

/** A small training site: two job types on built-in profiles, two weeks at 1 min. */
export const smallTraining: FacilityConfigInput = {
  mode: 'training',
  seed: 7,
  horizon_days: 14,
  step_s: 60,
  nodes: 200,
  idle_w: 420,
  rated_w: 3520,
  targets: [0.5],
  jobs: [
    { name: 'ft', share: 0.6, nodes: { dist: 'choice', values: [1, 2, 4, 8] }, duration_h: { dist: 'lognormal', median: 1, sigma: 0.5, min: 0.2, max: 6 }, profile: { builtin: 'llama2-70b-lora' } },
    { name: 'sd', share: 0.4, nodes: { dist: 'choice', values: [1, 4, 16] }, duration_h: { dist: 'lognormal', median: 2, sigma: 0.5, min: 0.3, max: 8 }, profile: { builtin: 'stable-diffusion' } },
  ],
};

export function scenario(over: Partial<FacilityConfigInput> = {}, base: FacilityConfigInput = smallTraining): ScenarioInput {
  return { name: 'test', config: FacilityConfig.parse({ ...base, ...over }), series: {} };
}
