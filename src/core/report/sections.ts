// The report's sections as HTML fragments. Every number comes from the analysis result (`caplab analyze --json`)
// or the stored records; nothing is recomputed here except rendering and rounding.
import type { AnalysisFlag, AnalysisGroup, AnalysisResult, Optimum } from '../../shared/analysis';
import { flagEffect, flagList } from '../../shared/flags';
import { FLAG_INFO, flagDetail, groupLabel, noAnswerText, rangeText, SELECTOR_ORDER, selectorTitle, slowdownText, sortedFlags } from '../../shared/analysis-view';
import { clockChart, efficiencyChart, paretoChart, sensitivityChart, throughputChart, type ChartInput, type ChartSpec } from '../../shared/charts';
import { escapeHtml as h } from './html-escape';
import { selectorInfo } from '../../shared/selectors';
import { meanCi, num, pct, utc } from './format';
import type { ReportInput, ReportSource } from './model';
import type { SoftwareRecord } from '../../shared/export';
import { chartSvg } from './svg';
import { costBasisText, costCells, costHeaders, costTotalText, tariffText } from '../../shared/cost-format';

type Cell = string | number | null;

/** A table. Headers are escaped here; cells are HTML as given (callers escape text with t()), numbers are formatted. */
export function table(headers: string[], rows: Cell[][], cls = ''): string {
  const cell = (c: Cell) => (c == null ? '–' : typeof c === 'number' ? num(c) : c);
  return `<table class="${cls}"><thead><tr>${headers.map((x) => `<th>${h(x)}</th>`).join('')}</tr></thead><tbody>${rows
    .map((r) => `<tr>${r.map((c) => `<td>${cell(c)}</td>`).join('')}</tr>`)
    .join('')}</tbody></table>`;
}

const t = (s: string) => h(s);

export function figure(spec: ChartSpec): string {
  return `<figure class="chart-figure" data-chart="${spec.id}"><figcaption class="chart-title">${h(spec.title)}</figcaption>${chartSvg(spec)}<p class="caption">${h(spec.caption)}</p></figure>`;
}

function scoreText(o: Optimum, units: string): string {
  return o.value == null ? '–' : selectorInfo(o.selector).score(num(o.value), units);
}

/** The answer: best cap per selector with its basis and uncertainty, or why there is none and what would give one. */
export function answerSection(r: AnalysisResult, g: AnalysisGroup, label: string): string {
  const units = g.units ?? 'units';
  const rows = SELECTOR_ORDER.map((s) => {
    const o = g.optima[s];
    const at = g.caps.find((c) => c.cap_w === o.cap_w);
    const none = noAnswerText(o);
    return [
      `${t(selectorTitle(s, r.options))}${s === r.options.selector ? ' <b>(selected)</b>' : ''}`,
      none ? `<b class="no-answer" data-selector="${s}">no answer</b>` : `<b class="best-cap" data-selector="${s}">${o.cap_w} W</b>`,
      t(scoreText(o, units)),
      t(o.basis || '–'),
      none ? `<span class="no-answer-reason" data-selector="${s}">${t(none.reason)}</span>${none.fix ? `<br><span class="fix" data-selector="${s}">Fix: ${t(none.fix)}</span>` : ''}` : t(rangeText(o)),
      at ? t(`${meanCi(at.throughput)} ${units}/s`) : '–',
      t(slowdownText(o, g.reference) ?? '–'),
    ];
  });
  const best = g.optima['max-efficiency'];
  const none = noAnswerText(best);
  const lead = none
    ? `<p class="lead no-best">${t(label)}: <b>no best cap</b> (${t(best.basis || 'no caps')}): ${t(none.reason)}.${none.fix ? ` Fix: ${t(none.fix)}.` : ''}</p>`
    : `<p class="lead">${t(label)}: <b>${best.cap_w} W</b> gives the most work per joule, ${t(scoreText(best, units))} (${t(best.basis)})${best.at_edge ? ` (at the ${best.at_edge} edge of the grid: the optimum may lie outside)` : ''}.</p>`;
  const ref = g.reference;
  const refLine = ref
    ? `<p class="small reference">${ref.valid ? `Slowdowns are in time per unit against ${ref.cap_w} W (${t(ref.basis)})` : `No slowdowns: ${t(ref.reason ?? '')}`}. ${t(units)}/J counts ${t(g.energy_basis || 'GPU energy')}.</p>`
    : '';
  return `${lead}${table(['selector', 'best cap', 'score', 'basis', 'uncertainty', 'throughput there (95 % CI)', 'slowdown vs reference'], rows, 'answer')}${refLine}`;
}

function environmentRows(src: ReportSource): Cell[][] {
  const e = src.environment as Record<string, unknown>;
  const known = ['host', 'os', 'caplab_version', 'caplab_commit', 'software'];
  const extra = Object.entries(e)
    .filter(([k, v]) => !known.includes(k) && v != null && typeof v !== 'object')
    .map(([k, v]) => [t(k.replace(/_/g, ' ')), t(String(v))]);
  return [
    ['host', t(src.environment.host ?? src.sweep?.host ?? 'not recorded')],
    ['operating system', t(src.environment.os ?? 'not recorded')],
    ['CapLab', t(`${src.environment.caplab_version}${src.environment.caplab_commit ? ` (commit ${src.environment.caplab_commit})` : ''}`)],
    ...softwareRows(src.environment.software),
    ...extra,
  ];
}

/** The workloads' Pythons, PyTorch builds and container images, and the host's CUDA driver and ROCm, as recorded. */
function softwareRows(sw: SoftwareRecord | undefined): Cell[][] {
  if (!sw) return [['workload software', t('not recorded (a sweep from before CapLab kept Python, PyTorch and image versions)')]];
  const rows: Cell[][] = [];
  for (const p of sw.pythons) {
    rows.push([`Python (${t(p.workload)})`, t(p.python ? `${p.python} (${p.executable})` : `not found: ${p.note ?? p.executable}`)]);
    if (p.python) {
      const built = [p.pytorch_cuda && `CUDA ${p.pytorch_cuda}`, p.pytorch_rocm && `ROCm ${p.pytorch_rocm}`, p.cudnn && `cuDNN ${p.cudnn}`].filter(Boolean).join(', ');
      rows.push([`PyTorch (${t(p.workload)})`, t(p.pytorch ? `${p.pytorch}${built ? ` built with ${built}` : ' (no CUDA or ROCm build)'}` : `absent — ${p.note ?? 'not importable'}`)]);
    }
  }
  for (const i of sw.images) rows.push([`container image (${t(i.workload)})`, t(`${i.runtime} ${i.image}: ${[i.id && `id ${i.id}`, ...i.digests].filter(Boolean).join(', ') || 'no digest'}${i.note ? ` (${i.note})` : ''}`)]);
  rows.push(['CUDA driver', t(sw.cuda_driver ?? 'not found (no nvidia-smi)')], ['ROCm', t(sw.rocm ?? 'not installed')]);
  if (sw.note) rows.push(['workload software', t(sw.note)]);
  return rows;
}

/** Machine and run record: host, software, the devices with their identities, the plan as YAML. */
export function recordSection(src: ReportSource): string {
  const s = src.sweep;
  const sweepRows: Cell[][] = s
    ? [
        ['sweep', t(`#${s.id} ${s.name}`)],
        ['status', t(`${s.status}${s.error ? `: ${s.error}` : ''}`)],
        ['backend', t(`${s.backend}${s.simulated ? ' (simulated GPUs: no hardware was measured)' : ''}`)],
        ['started', utc(s.created_at)],
        ['finished', utc(s.finished_at)],
        ['runs', t(`${s.runs_done} of ${s.run_count} finished`)],
      ]
    : [];
  const gpus = src.devices.map((d) => [
    t(`${d.kind} ${d.index}`),
    t(`${d.name}${d.simulated && !/simulated/i.test(d.name) ? ' (simulated)' : ''}`),
    t(d.uuid ?? '–'),
    t(d.pci_bus_id ?? '–'),
    t(d.driver ?? '–'),
    t(d.vbios ?? '–'),
    t(d.min_limit_w != null && d.max_limit_w != null ? `${num(d.min_limit_w)}–${num(d.max_limit_w)} W (default ${num(d.default_limit_w)})` : '–'),
  ]);
  return [
    table(['', ''], [...sweepRows, ...environmentRows(src)], 'kv'),
    `<h3>Devices</h3>`,
    gpus.length ? table(['device', 'model', 'UUID', 'PCI bus', 'driver', 'VBIOS', 'power limits'], gpus, 'devices small') : '<p>No devices recorded.</p>',
    src.plan_yaml ? `<h3>Plan</h3><pre class="plan">${h(src.plan_yaml)}</pre>` : '',
  ].join('');
}

/** Sensor kinds, sampling, windows, steady-state checks, energy method, overhead model, statistics. */
export function methodSection(src: ReportSource): string {
  const o = src.analysis.options;
  const p = src.sweep?.plan;
  const span = (x: { seconds: number } | { steps: number }) => ('seconds' in x ? `${x.seconds} s` : `${x.steps} steps`);
  const kinds = [...new Set(src.devices.flatMap((d) => (d.sensors.power_kinds as string[] | undefined) ?? []))];
  const counters = src.devices.filter((d) => d.sensors.energy_counter).length;
  const used = [...new Set(src.analysis.runs.map((r) => r.energy_sensor).filter((x): x is string => x != null))];
  const steadyMethods = [...new Set(src.analysis.runs.map((r) => r.steady_state.method))];
  const cpu = src.analysis.runs.some((r) => r.node?.source === 'measured-cpu');
  const rows: Cell[][] = [
    ['power sensors', t(`${kinds.join(', ') || 'not recorded'}; energy counter on ${counters} of ${src.devices.length} devices`)],
    ['energy sensors used', t(used.join(', ') || '–')],
    ['sampling interval', p ? `${p.sample_interval_ms} ms` : '–'],
    ['warm-up', p ? t(span(p.warmup)) : '–'],
    ['measurement window', p ? t(span(p.window)) : '–'],
    ['cool-down', p ? `${p.cooldown_s} s` : '–'],
    ['order', p ? t(`${p.order} (seed ${p.seed}), ${p.repetitions} repetition${p.repetitions > 1 ? 's' : ''} per cap`) : '–'],
    ['steady state', t(`${steadyMethods.join(', ') || 'MSER-5'} truncation on throughput and power; a warm-up reaching into the window or a window trend over 2 % is flagged`)],
    ['energy', t('energy counter read at the window edges (interpolated) > counter-derived power > instant power > 1 s average power (its lag accounted for); over the measurement window')],
    ['node energy', t(cpu ? `GPU energy + measured CPU energy (RAPL) where recorded, else + ${o.overhead_w} W node overhead × window` : `GPU energy + ${o.overhead_w} W node overhead × window`)],
    ['efficiency', t('work units per joule of node energy; throughput is work units per second per GPU')],
    ['statistics', t(`mean, sd, CV and ${Math.round((1 - o.alpha) * 100)} % CI (Student t) over repetitions; best cap not distinguishable from caps with Welch t-test p ≥ ${o.alpha}; high variance above CV ${o.cv_threshold}`)],
    ['enforcement', t(`a cap counts as enforced when mean power ≤ cap × ${1 + o.enforce_tol_frac} + ${o.enforce_tol_w} W; caps not enforced are ${o.include_unenforced ? 'kept' : 'excluded from the best cap'}`)],
    ['selectors', t(`max-efficiency; min-energy-slowdown (≤ ${num(o.slowdown_budget * 100)} % slower than the reference: the default limit, else the highest cap); min-edp; weighted (${num(o.weight * 100)} % time); a best cap needs at least 2 valid caps, and min-energy-slowdown a valid reference`)],
  ];
  return table(['', ''], rows, 'kv method');
}

/** Per-cap table: the statistics the charts show, with their CIs. */
export function capTable(g: AnalysisGroup): string {
  const units = g.units ?? 'units';
  return table(
    ['cap', 'n', `efficiency (${units}/J, 95 % CI)`, `throughput (${units}/s/GPU)`, 'power (W/GPU)', 'node power (W)', 'enforced', 'flags'],
    g.caps.map((c) => [
      `${c.cap_w} W`,
      c.n_usable,
      t(meanCi(c.efficiency)),
      t(meanCi(c.throughput)),
      t(meanCi(c.power_w)),
      num(c.node_power_w.mean),
      c.enforcement.enforced == null ? '?' : c.enforcement.enforced ? 'yes' : '<b>no</b>',
      t(sortedFlags(c.flags).join(', ') || '–'),
    ]),
    'caps small',
  );
}

/** Cost and carbon per cap under the tariff the report was asked for (the analysis' `cost`), and the sweep's total. */
export function costSection(r: AnalysisResult, g: AnalysisGroup): string {
  const cost = r.cost;
  const cg = cost?.groups.find((x) => x.workload === g.workload && x.device_model === g.device_model);
  if (!cost || !cg) return '<p>No tariff given for this source.</p>';
  return `<p>Tariff: ${t(tariffText(cost))}.</p>${table(costHeaders(cost, g.units), cg.caps.map((c) => costCells(c).map(t)), 'small')}<p>${t(costTotalText(cost))}. ${t(costBasisText(cost))}</p>${cost.notes.map((n) => `<p>${t(n)}</p>`).join('')}`;
}

export function chartsFor(inputs: ChartInput[]): { eff: ChartSpec; thr: ChartSpec; par: ChartSpec } {
  return { eff: efficiencyChart(inputs), thr: throughputChart(inputs), par: paretoChart(inputs) };
}

export function clocksSection(g: AnalysisGroup): string {
  return `${figure(clockChart(g))}${table(
    ['cap', 'SM clock (MHz)', 'memory clock (MHz)', 'power-cap throttled', 'mean temperature (°C)'],
    g.caps.map((c) => [`${c.cap_w} W`, num(c.clocks.sm_mhz), num(c.clocks.mem_mhz), pct(c.clocks.power_cap_throttled_share, 0), num(c.temp_c.mean)]),
    'small',
  )}`;
}

export function sensitivitySection(g: AnalysisGroup): string {
  const s = g.sensitivity;
  const moves = s.changes.length
    ? s.changes.map((c) => `${c.selector}: ${c.from_cap_w ?? '–'} → ${c.to_cap_w ?? '–'} W between ${c.overhead_lo} and ${c.overhead_hi} W`).join('; ')
    : `no selector's best cap moves between ${s.from_w} and ${s.to_w} W of overhead`;
  return `${figure(sensitivityChart(g))}${table(
    ['overhead (W)', ...SELECTOR_ORDER, 'efficiency at best'],
    s.table.map((r) => [r.overhead_w, ...SELECTOR_ORDER.map((x) => (r.best[x] == null ? null : `${r.best[x]} W`)), num(r.efficiency)]),
    'small',
  )}<p>${t(moves)}. ${t(s.note)}</p>`;
}

export function flagsSection(g: AnalysisGroup, r: AnalysisResult): string {
  const flagged = g.caps.filter((c) => c.flags.length);
  const rows = flagged.flatMap((c) => sortedFlags(c.flags).map((f) => [`${c.cap_w} W`, `<span class="flag ${FLAG_INFO[f].severity}">${t(f)}</span>`, FLAG_INFO[f].severity, t(flagDetail(c, f))]));
  const body = rows.length ? table(['cap', 'flag', 'severity', 'what it means here'], rows, 'small') : '<p>No flags: caps enforced, repetitions consistent, windows long enough and steady.</p>';
  const notes = [...g.notes, ...r.warnings];
  return `${body}${flagLegend(groupFlags(g, r))}${notes.length ? `<h3>Notes and warnings</h3><ul class="small">${notes.map((n) => `<li>${t(n)}</li>`).join('')}</ul>` : ''}`;
}

/** Every flag raised in a group, on its caps or its runs, in registry order. */
export function groupFlags(g: AnalysisGroup, r: AnalysisResult): AnalysisFlag[] {
  const runs = r.runs.filter((x) => x.workload === g.workload && x.device_model === g.device_model);
  const raised = new Set<AnalysisFlag>([...g.caps.flatMap((c) => c.flags), ...runs.flatMap((x) => x.flags)]);
  return flagList.map((f) => f.id).filter((f) => raised.has(f));
}

/** The registry's meaning and effect of each flag raised (src/shared/flags.ts). */
function flagLegend(flags: readonly AnalysisFlag[]): string {
  if (!flags.length) return '';
  const rows = flags.map((f) => [`<span class="flag ${FLAG_INFO[f].severity}" data-flag="${f}">${t(f)}</span>`, t(FLAG_INFO[f].label), FLAG_INFO[f].severity, t(FLAG_INFO[f].meaning), t(flagEffect(FLAG_INFO[f]))]);
  return `<h3>What each flag means</h3>${table(['flag', 'label', 'severity', 'meaning', 'effect on the answer'], rows, 'small flag-legend')}`;
}

export function runsSection(r: AnalysisResult, g: AnalysisGroup): string {
  const units = g.units ?? 'units';
  const runs = r.runs.filter((x) => x.workload === g.workload && x.device_model === g.device_model);
  return table(
    ['run', 'cap', 'rep.', 'status', `throughput (${units}/s/GPU)`, 'power (W/GPU)', 'GPU energy (J)', `efficiency (${units}/J)`, 'sensor', 'window (s)', 'flags'],
    runs.map((x) => [
      `#${x.run_id}`,
      `${x.cap_w}\u00a0W`,
      x.repetition,
      t(x.status),
      num(x.throughput),
      num(x.mean_power_w),
      num(x.gpu_energy_j),
      num(x.efficiency),
      t(x.energy_sensor ?? '–'),
      num(x.duration_s),
      t(x.flags.join(', ') || '–'),
    ]),
    'runs small',
  );
}

/** The raw per-run summary at full precision (what `caplab analyze --json` has under runs[]). */
export function rawSection(r: AnalysisResult): string {
  const rows = r.runs.map((x) => [
    `#${x.run_id}`,
    `${x.cap_w}`,
    String(x.repetition),
    x.window ? `${x.window.start.toFixed(3)}–${x.window.end.toFixed(3)}` : '–',
    x.units_total == null ? '–' : String(x.units_total),
    x.gpu_energy_j == null ? '–' : String(x.gpu_energy_j),
    x.node?.energy_j == null ? '–' : String(x.node.energy_j),
    x.throughput == null ? '–' : String(x.throughput),
    x.efficiency == null ? '–' : String(x.efficiency),
  ]);
  return `<p class="small json">Analysis options: ${t(JSON.stringify(r.options).replace(/,"/g, ', "'))}</p>${table(['run', 'cap (W)', 'rep.', 'window (epoch s)', 'units', 'GPU energy (J)', 'node energy (J)', 'throughput (/s/GPU)', 'efficiency (/J)'], rows, 'raw tiny')}`;
}

export function comparisonSection(input: ReportInput): string {
  const c = input.comparison;
  if (!c) return '';
  const head = table(
    ['sweep', 'device', ...SELECTOR_ORDER.map((s) => `best: ${s}`), 'peak efficiency'],
    c.sweeps.map((s) => [t(s.label), t(s.device_model), ...SELECTOR_ORDER.map((x) => (s.best[x] == null ? null : `${s.best[x]} W`)), num(s.peak_efficiency)]),
    'small',
  );
  const rel = (v: number | null) => (v == null ? '–' : `${v >= 0 ? '+' : ''}${pct(v)}`);
  const rows = c.rows.map((r) => [`${r.cap_w} W`, ...r.entries.flatMap((e) => [num(e.efficiency), rel(e.rel_efficiency), num(e.throughput), rel(e.rel_throughput)])]);
  const cols = c.sweeps.flatMap((s) => [`${s.label} units/J`, 'vs base', `${s.label} units/s`, 'vs base']);
  return `<p>${t(`${c.workload}, relative to ${c.baseline}.`)}</p>${head}${table(['cap', ...cols], rows, 'small')}${c.notes.length ? `<ul class="small">${c.notes.map((n) => `<li>${t(n)}</li>`).join('')}</ul>` : ''}`;
}

export const groupName = (g: AnalysisGroup) => groupLabel(g);
