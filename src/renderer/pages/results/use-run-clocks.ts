import { useEffect, useState } from 'react';
import type { RunRecord, RunTraces } from '../../../shared/records';
import { api } from '../../api/client';

const cache = new Map<number, RunTraces>();

export async function loadTraces(runId: number, maxPoints = 600): Promise<RunTraces> {
  const hit = cache.get(runId);
  if (hit) return hit;
  const t = await api.getRunTraces({ run_id: runId, max_points: maxPoints });
  cache.set(runId, t);
  return t;
}

function meanIn(t: number[], v: (number | null)[], a: number | null, b: number | null): number | null {
  let s = 0;
  let n = 0;
  t.forEach((x, i) => {
    const y = v[i];
    if (y != null && (a == null || x >= a) && (b == null || x <= b)) {
      s += y;
      n++;
    }
  });
  return n ? s / n : null;
}

/** Mean SM clock over each finished run's measurement window (from its stored traces), by run id. */
export function useRunClocks(runs: RunRecord[]): Map<number, number | null> {
  const [clocks, setClocks] = useState<Map<number, number | null>>(new Map());
  const key = runs.map((r) => r.id).join(',');
  useEffect(() => {
    let stale = false;
    void (async () => {
      const out = new Map<number, number | null>();
      for (const r of runs.filter((x) => x.status === 'done').slice(0, 120)) {
        try {
          const tr = await loadTraces(r.id);
          const per = tr.devices.map((d) => meanIn(d.sm_clock_mhz.t, d.sm_clock_mhz.v, r.measure_start, r.measure_end)).filter((x): x is number => x != null);
          out.set(r.id, per.length ? per.reduce((a, b) => a + b, 0) / per.length : null);
        } catch {
          out.set(r.id, null);
        }
        if (stale) return;
      }
      setClocks(out);
    })();
    return () => {
      stale = true;
    };
  }, [key]);
  return clocks;
}
