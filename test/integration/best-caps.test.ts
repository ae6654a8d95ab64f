// History's best-cap column (issue #29 item 2): bestCaps answers what analyzeSweep answers with the default options,
// for each sweep asked, analyses a finished sweep once, and says which ids it could not analyse.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../src/main/lab/engine';
import { tempDir } from '../helpers/tmp';
import { labEnv, recordSimSweeps } from '../helpers/sim-sweep';

const tmp = tempDir('caplab-best-caps-');
const env = labEnv(tmp.dir);
let ids: number[] = [];
let engine: Engine;

beforeAll(async () => {
  ids = await recordSimSweeps(tmp.dir, ['h100-sxm', 'h200'], { repetitions: 1 });
  engine = await Engine.open({ dbPath: env.CAPLAB_DB, env: { ...process.env, ...env } });
}, 120_000);
afterAll(async () => {
  await engine?.close();
  tmp.cleanup();
});

describe('bestCaps', () => {
  it('gives each sweep the best cap analyzeSweep gives it, per workload and GPU model', async () => {
    const best = await engine.bestCaps({ sweep_ids: ids });
    expect(best.map((b) => b.sweep_id)).toEqual(ids);
    for (const b of best) {
      const a = await engine.analyzeSweep({ sweep_id: b.sweep_id });
      expect(b.error).toBeNull();
      expect(b.selector).toBe(a.options.selector);
      expect(b.groups).toEqual(a.groups.map((g) => ({ workload: g.workload, device_model: g.device_model, cap_w: g.best.cap_w, no_answer_reason: g.best.no_answer_reason })));
      expect(b.groups).toHaveLength(1);
      const g = b.groups[0]!;
      if (g.cap_w === null) expect(g.no_answer_reason).toMatch(/\w/);
      else expect([300, 400, 500]).toContain(g.cap_w);
    }
    expect(best.some((b) => b.groups[0]!.cap_w !== null)).toBe(true);
  });

  it('analyses a finished sweep once: the second answer is the one kept', async () => {
    const [first] = await engine.bestCaps({ sweep_ids: [ids[0]!] });
    const [second] = await engine.bestCaps({ sweep_ids: [ids[0]!] });
    expect(second).toBe(first);
  });

  it('names an id that is not stored instead of failing the whole list', async () => {
    const best = await engine.bestCaps({ sweep_ids: [ids[0]!, 999_999] });
    expect(best[0]!.error).toBeNull();
    expect(best[1]).toMatchObject({ sweep_id: 999_999, groups: [], error: 'no sweep 999999' });
  });
});
