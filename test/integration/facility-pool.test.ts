import { describe, expect, it } from 'vitest';
import { readFacilityFile } from '../../src/main/lab/facility/config-file';
import { runScenarioInline } from '../../src/core/facility/run';
import { runFacility } from '../../src/main/lab/facility/pool';

// The NLR colocation reconstruction, cut to one week so each replica is quick (its search at 60 % takes two tries, so replica 1 starts beside the second).
const level = () => {
  const sc = readFacilityFile('resources/facility/nlr-colocation.yaml').find((s) => s.name === 'baseline')!;
  return { ...sc, config: { ...sc.config, targets: [0.6], replicas: 3, horizon_days: 7 } };
};

describe('facility runs on worker threads', () => {
  it('give the same levels as the plain search-then-replicas on this thread, on 1 worker and on 3 (replicas 0 and 1 run during the search)', async () => {
    const progress: string[] = [];
    const inline = await runFacility([level()], { threads: 0 });
    const one = await runFacility([level()], { threads: 1 });
    const three = await runFacility([level()], { threads: 3, onProgress: (_d, _t, label) => progress.push(label) });
    // The plain path: the whole search, then every replica (runScenarioInline).
    expect(inline.levels).toEqual(runScenarioInline(level()));
    expect(one.levels).toEqual(inline.levels);
    expect(three.levels).toEqual(inline.levels);
    const l = three.levels[0]!;
    expect(Math.abs(l.utilization - 0.6)).toBeLessThan(0.02);
    expect(l.replicas).toBe(3);
    // Every replica reported once, the load found first.
    expect(progress[0]).toMatch(/load found/);
    expect(progress.filter((p) => /replica/.test(p)).sort()).toEqual(['baseline 60 %: replica 1/3', 'baseline 60 %: replica 2/3', 'baseline 60 %: replica 3/3']);
  }, 120_000);
});
