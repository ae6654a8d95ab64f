"""SimPy 3 reference of CapLab's facility training model (bench/facility.ts runs it beside the TypeScript one).

Same model as src/core/facility/training.ts: Poisson arrivals per step (jobs/day x hourly calendar shape), job type by
share, node count and duration drawn per job, a fixed node pool allocated FIFO (simpy.Container serves blocked gets
in order), job power = its per-node step profile (start-up, looped middle, wind-down) x nodes, idle power for free
nodes. Written in its strongest honest form: arrivals and job attributes drawn with numpy in bulk, the simulation
clock only visits steps with arrivals, and each job adds its profile to the power array with one numpy slice add.
The random streams differ from the TypeScript ones (numpy vs sfc32), so results agree statistically, not bitwise.

With a "grid" entry in the model (`year` then plays it): the grid response of src/core/facility/grid.ts over the
year: each type's power and busy nodes kept apart, and in every step from an event's request until the site is back
at rest (no deferred work left, battery full) the same policy in the same order (battery, caps on each type's hull
by least work lost per W shed, pausing flexible nodes, deferred work drained on free nodes, recharging); steps at rest
keep the site's power as simulated (numpy), which is where the TypeScript loop also changes nothing.

Usage: facility_simpy.py MODEL.json year|search  ->  one JSON line on stdout.
"""
import json
import resource
import sys
import time

import numpy as np
import simpy


def played(profile, d):
    """Per-node power for a job of d steps (mirrors addPlayed)."""
    v = profile["values"]
    n = len(v)
    head, tail_full = profile["head"], profile["tail"]
    tail = min(tail_full, d >> 1)
    body_end = n - tail_full
    first = min(d - tail, body_end)
    parts = [v[:first]]
    rest = d - tail - first
    if rest > 0:
        loop = max(1, body_end - head)
        start = (first - head) % loop
        idx = head + (start + np.arange(rest)) % loop
        parts.append(v[idx])
    if tail > 0:
        parts.append(v[n - tail:])
    return np.concatenate(parts)


def simulate(m, jobs_per_day, seed, power):
    rng = np.random.default_rng(seed)
    steps, step_s, pool_n = m["steps"], m["step_s"], m["nodes"]
    hourly = np.asarray(m["hourly"])
    per_step = jobs_per_day * step_s / 86400.0
    hour_of_step = (np.arange(steps) * step_s // 3600).astype(np.int64)
    counts = rng.poisson(per_step * hourly[hour_of_step])
    total = int(counts.sum())
    types = m["types"]
    shares = np.array([t["share"] for t in types], dtype=float)
    cum = np.cumsum(shares / shares.sum())
    t_idx = np.minimum(np.searchsorted(cum, rng.random(total), side="right"), len(types) - 1)
    nodes = np.empty(total, dtype=np.int64)
    dur = np.empty(total, dtype=np.int64)
    for k, t in enumerate(types):
        sel = t_idx == k
        cnt = int(sel.sum())
        w = np.asarray(t["nodes"]["weights"], dtype=float)
        nodes[sel] = rng.choice(np.asarray(t["nodes"]["values"]), size=cnt, p=w / w.sum())
        d = t["duration"]
        hours = np.clip(np.exp(np.log(d["median"]) + d["sigma"] * rng.standard_normal(cnt)), d["min"], d["max"])
        dur[sel] = np.maximum(1, np.rint(hours * 3600 * t["stretch"] / step_s)).astype(np.int64)
    profiles = [{"values": np.asarray(t["profile"]["values"]), "head": t["profile"]["head"], "tail": t["profile"]["tail"]} for t in types]
    cache = [dict() for _ in types]

    env = simpy.Environment()
    pool = simpy.Container(env, capacity=pool_n, init=pool_n)
    acc = np.zeros(steps) if power else None
    per_type = power and "grid" in m
    type_acc = [np.zeros(steps) for _ in types] if per_type else None
    type_busy = [np.zeros(steps + 1) for _ in types] if per_type else None
    busy_diff = np.zeros(steps + 1, dtype=np.int64)
    stats = {"started": 0, "wait": 0.0}

    def job(k, t, n, d):
        arrived = env.now
        yield pool.get(n)
        s = int(env.now)
        end = min(steps, s + d)
        busy_diff[s] += n
        busy_diff[end] -= n
        stats["started"] += 1
        stats["wait"] += s - arrived
        if power:
            prof = cache[t].get(d)
            if prof is None:
                prof = cache[t][d] = played(profiles[t], d)
            acc[s:end] += n * prof[: end - s]
            if per_type:
                type_acc[t][s:end] += n * prof[: end - s]
                type_busy[t][s] += n
                type_busy[t][end] -= n
        yield env.timeout(d)
        yield pool.put(n)

    def arrivals():
        k = 0
        for s in np.flatnonzero(counts):
            yield env.timeout(int(s) - env.now)
            for _ in range(int(counts[s])):
                env.process(job(k, int(t_idx[k]), int(nodes[k]), int(dur[k])))
                k += 1

    env.process(arrivals())
    env.run(until=steps)
    busy = np.cumsum(busy_diff[:steps])
    util = float(busy.sum()) / (pool_n * steps)
    out = {"utilization": util, "jobs_started": stats["started"]}
    if power:
        it = acc + m["idle_w"] * (pool_n - busy)
        out.update(mean_w=float(it.mean()), peak_w=float(it.max()), p99_w=float(np.quantile(it, 0.99)))
        if per_type:
            busy_t = [np.cumsum(b[:steps]) for b in type_busy]
            out.update(respond(m, it, type_acc, busy_t))
    return out


def choose_caps(types, P, N, need):
    """chooseCaps of grid.ts: hull segments of all types filled in order of work lost per W shed."""
    segs = []
    for j, t in enumerate(types):
        if not (P[j] > 0 and N[j] > 0):
            continue
        ps = pl = 0.0
        for sg in t["segments"]:
            segs.append((N[j] * (sg["loss"] - pl) / (P[j] * (sg["shed"] - ps)), j, P[j] * (sg["shed"] - ps), N[j] * (sg["loss"] - pl)))
            ps, pl = sg["shed"], sg["loss"]
    segs.sort(key=lambda x: x[0])
    shed = [0.0] * len(types)
    loss = [0.0] * len(types)
    left = need
    for _, j, ds, dl in segs:
        if left <= 0:
            break
        x = 1.0 if ds <= left else left / ds
        shed[j] += x * ds
        loss[j] += x * dl
        left -= x * ds
    return shed, loss


def respond(m, it0, tp, tb):
    """respond() of grid.ts for a site without overheads or a firm limit: events, caps, pauses, a battery."""
    g = m["grid"]
    gt = g["types"]
    steps = len(it0)
    T = len(gt)
    dt_h = m["step_s"] / 3600.0
    idle = m["idle_w"]
    grid = it0.copy()
    ev_limit = np.full(steps, np.inf)
    in_event = np.zeros(steps, dtype=bool)
    events = sorted(g["events"], key=lambda e: e["request"])
    bat = g["battery"]
    eta = bat["efficiency"] ** 0.5
    soc = bat["soc_start"] * bat["wh"]
    backlog = [0.0] * T
    loss_total = deferred_total = out_wh = 0.0
    met = [0] * len(events)
    nxt = 0
    s = 0
    eps = 1e-6
    last_baseline = np.inf
    while s < steps:
        while nxt < len(events) and events[nxt]["request"] <= s:
            e = events[nxt]
            lo = max(0, e["request"] - g["baseline_steps"])
            base = float(grid[lo:e["request"]].mean()) if e["request"] > lo else float(it0[0])
            limit = base * (1 - e["reduce_frac"])
            e["limit"] = limit
            last_baseline = base
            ev_limit[e["due"]:e["end"]] = np.minimum(ev_limit[e["due"]:e["end"]], limit)
            in_event[e["due"]:e["end"]] = True
            nxt += 1
        at_rest = sum(backlog) <= 1e-9 and soc >= bat["wh"]
        if at_rest and not in_event[s]:
            # Nothing to do until the next event: jump to its request (or its window, if already requested).
            later = [e["due"] for e in events[:nxt] if e["due"] > s]
            target = min(later + ([events[nxt]["request"]] if nxt < len(events) else []) + [steps])
            s = max(s + 1, target)
            continue
        P = [tp[j][s] for j in range(T)]
        N = [tb[j][s] for j in range(T)]
        IT = float(it0[s])
        limit = ev_limit[s]
        if sum(backlog) > 0 and not in_event[s]:
            free_left = m["nodes"] - sum(N)
            left = 0.0
            for j in range(T):
                x = min(backlog[j], free_left)
                if not x > 0:
                    x = 0.0
                backlog[j] -= x
                free_left -= x
                IT += x * (gt[j]["busy_w"] - idle)
                left += backlog[j]
            if left <= 1e-9:
                backlog = [0.0] * T
        need = IT - limit
        dis = ch = 0.0
        if need > eps:
            dis = min(need, bat["w"], soc * eta / dt_h)
            soc -= dis * dt_h / eta
            out_wh += dis * dt_h
            need -= dis
            cap_loss_per_node = [0.0] * T
            if need > eps:
                shed, loss = choose_caps(gt, P, N, need)
                for j in range(T):
                    P[j] -= shed[j]
                    loss_total += loss[j]
                    cap_loss_per_node[j] = loss[j] / N[j] if N[j] > 0 else 0.0
                IT -= sum(shed)
                need -= sum(shed)
            if need > eps:
                gains = sorted(((P[j] / N[j] - idle if N[j] > 0 else 0.0, j) for j in range(T)), key=lambda x: -x[0])
                for gain, j in gains:
                    if need <= eps or gain <= 0 or gt[j]["flexible"] <= 0:
                        continue
                    x = min(gt[j]["flexible"] * N[j], need / gain)
                    IT -= x * gain
                    need -= x * gain
                    backlog[j] += x
                    deferred_total += x
                    loss_total -= x * cap_loss_per_node[j]
        elif not in_event[s] and soc < bat["wh"]:
            ch = min(bat["w"], (bat["wh"] - soc) / eta / dt_h, max(0.0, last_baseline - IT))
            soc += ch * eta * dt_h
        grid[s] = IT - dis + ch
        s += 1
    for i, e in enumerate(events):
        w = grid[e["due"]:e["end"]]
        met[i] = float(np.mean(w <= e["limit"] + eps + 1e-9 * abs(e["limit"])))
    return {
        "grid_mean_w": float(grid.mean()),
        "grid_peak_w": float(grid.max()),
        "events_met_share": float(np.mean(met)),
        "work_lost_node_h": loss_total * dt_h,
        "deferred_node_h": deferred_total * dt_h,
        "battery_cycles": out_wh / bat["wh"],
    }


def find_load(m, target, seed, tol, max_it):
    """Same search as findLoad in src/core/facility/run.ts: first guess, proportional step, Illinois false position."""
    it = [0]

    def util(x):
        it[0] += 1
        return simulate(m, x, seed, False)["utilization"]

    close = lambda u: abs(u - target) <= tol
    lo, hi = (0.0, 0.0), (float("inf"), 1.0)

    def take(x):
        nonlocal lo, hi
        p = (x, util(x))
        if p[1] < target and p[0] > lo[0]:
            lo = p
        if p[1] >= target and p[0] < hi[0]:
            hi = p
        return p

    p = take(m["first_guess"][str(target)])
    k = 0
    while not close(p[1]) and hi[0] == float("inf"):
        p = take(min(p[0] * 4, p[0] * target / p[1]) * 1.02 if p[1] > 0 else p[0] * 4)
        k += 1
    side = 0
    while not close(p[1]) and it[0] < max_it:
        ulo, uhi = lo[1], hi[1]
        if side == -1:
            uhi = target + (uhi - target) / 2
        if side == 1:
            ulo = target - (target - ulo) / 2
        x = lo[0] + (target - ulo) * (hi[0] - lo[0]) / (uhi - ulo)
        if not (lo[0] < x < hi[0]):
            x = (lo[0] + hi[0]) / 2
        p = take(x)
        side = -1 if p[1] < target else 1
    return {"load": p[0], "utilization": p[1], "iterations": it[0]}


def main():
    m = json.load(open(sys.argv[1]))
    what = sys.argv[2]
    t0 = time.perf_counter()
    c0 = time.process_time()
    if what == "year":
        out = simulate(m, m["load"], m["seed"], True)
    else:
        out = find_load(m, m["target"], m["seed"], m["tolerance"], m["max_iterations"])
    out["wall_s"] = time.perf_counter() - t0
    out["cpu_s"] = time.process_time() - c0
    out["max_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps(out))


if __name__ == "__main__":
    main()
