import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { MethodInput, MethodOutput } from '../../../shared/api';
import { resourcesDir } from '../runner/workloads';
import { FacilityConfigError, facilityFromYaml } from './config-file';
import { runFacility } from './pool';

export function facilityResourcesDir(env: NodeJS.ProcessEnv): string {
  return join(resourcesDir(env), 'facility');
}

export function listFacilityConfigs(env: NodeJS.ProcessEnv): MethodOutput<'listFacilityConfigs'> {
  const dir = facilityResourcesDir(env);
  return readdirSync(dir)
    .filter((f) => /\.ya?ml$/.test(f))
    .sort()
    .map((f) => ({ name: f.replace(/\.ya?ml$/, ''), file: join(dir, f), yaml: readFileSync(join(dir, f), 'utf8') }));
}

export async function runFacilityYaml(
  input: MethodInput<'runFacility'>,
  env: NodeJS.ProcessEnv,
  onProgress: (done: number, total: number, label: string) => void,
): Promise<MethodOutput<'runFacility'>> {
  let scenarios = facilityFromYaml(input.yaml, { baseDir: input.base_dir ?? facilityResourcesDir(env), env, where: 'facility config' });
  if (input.scenario !== undefined) {
    const ref = scenarios.find((s) => s.name === input.scenario)?.config.same_load_as;
    scenarios = scenarios.filter((s) => s.name === input.scenario || s.name === ref);
    if (scenarios.length === 0) throw new FacilityConfigError(`scenario: no scenario "${input.scenario}"`);
  }
  scenarios = scenarios.map((s) => ({
    ...s,
    config: { ...s.config, replicas: input.replicas ?? s.config.replicas, horizon_days: input.horizon_days ?? s.config.horizon_days },
  }));
  return runFacility(scenarios, { onProgress });
}
