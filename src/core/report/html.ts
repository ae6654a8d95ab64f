// The lab report as one self-contained HTML document (inline SVG charts, print CSS, light theme, A4 or Letter).
// Printed to PDF by headless Chromium (CLI) or Electron's printToPDF (app); opened as is in any browser.
import type { AnalysisGroup } from '../../shared/analysis';
import { matchGroup } from '../../shared/analysis-view';
import type { ChartInput } from '../../shared/charts';
import { escapeHtml as h } from './html-escape';
import type { Paper, ReportInput, ReportSource } from './model';
import { REPORT_CSS } from './style';
import { filesSection, segmentsSection, traceSection } from './dataset';
import {
  answerSection,
  capTable,
  chartsFor,
  clocksSection,
  comparisonSection,
  costSection,
  figure,
  flagsSection,
  groupName,
  methodSection,
  rawSection,
  recordSection,
  runsSection,
  sensitivitySection,
} from './sections';
import { isTuneSession, tuneSection } from './tune';

interface Unit {
  g: AnalysisGroup;
  src: ReportSource;
  inputs: ChartInput[];
}

/** Each workload group of each source, with the matching groups of the other sources (compare reports). */
function unitsOf(input: ReportInput): Unit[] {
  const [first, ...rest] = input.sources;
  if (!first) return [];
  const primary = input.kind === 'compare' ? [first] : input.sources;
  return primary.flatMap((src) =>
    src.analysis.groups.map((g) => ({
      g,
      src,
      inputs: [
        { name: src.label, group: g },
        ...(input.kind === 'compare' ? rest.flatMap((o) => {
          const m = matchGroup(o.analysis.groups, g);
          return m ? [{ name: o.label, group: m }] : [];
        }) : []),
      ],
    })),
  );
}

function perUnit(units: Unit[], body: (u: Unit) => string): string {
  if (units.length === 0) return '<p>Nothing to analyse: no finished runs.</p>';
  return units.map((u) => `${units.length > 1 || u.inputs.length > 1 ? `<h3>${h(groupName(u.g))} · ${h(u.src.label)}</h3>` : ''}${body(u)}`).join('');
}

function perSource(sources: ReportSource[], body: (s: ReportSource) => string, labelled = sources.length > 1): string {
  return sources.map((s) => `${labelled ? `<h3>${h(s.label)}: ${h(s.name)}</h3>` : ''}${body(s)}`).join('');
}

/** A dataset's own sections: energy by segment and the trace (its record lists its files). */
function datasetSections(src: ReportSource | undefined): Section[] {
  const d = src?.dataset;
  if (!d) return [];
  return [
    { id: 'segments', title: 'Energy by segment', body: segmentsSection(d) },
    { id: 'trace', title: 'Power trace', body: traceSection(d) },
  ];
}

const recordOf = (s: ReportSource) => `${recordSection(s)}${s.dataset ? filesSection(s.dataset) : ''}`;

function sections(input: ReportInput): Section[] {
  const units = unitsOf(input);
  const own = datasetSections(input.kind === 'dataset' ? input.sources[0] : undefined);
  // A dataset whose segments carry no cap and work units has energy and a trace, no per-cap answer.
  if (own.length && units.length === 0) return [...own, { id: 'record', title: 'Machine and run record', body: perSource(input.sources, recordOf) }];
  const tuned = input.sources.filter(isTuneSession);
  const out: Section[] = [
    // A tuning session's outcome first: the cap it held is its answer; the sections after analyse its visits.
    ...(tuned.length ? [{ id: 'tuning', title: 'Tuning', body: perSource(tuned, tuneSection, input.sources.length > 1) }] : []),
    {
      id: 'answer',
      title: 'The answer',
      body:
        input.kind === 'compare'
          ? input.sources.map((s) => s.analysis.groups.map((g) => `<h3>${h(s.label)} · ${h(groupName(g))}</h3>${answerSection(s.analysis, g, s.label)}`).join('')).join('')
          : perUnit(units, (u) => answerSection(u.src.analysis, u.g, groupName(u.g))),
    },
    ...own,
  ];
  if (input.comparison) out.push({ id: 'comparison', title: 'Comparison', body: comparisonSection(input) });
  out.push(
    { id: 'record', title: 'Machine and run record', body: perSource(input.sources, recordOf) },
    { id: 'method', title: 'Methodology', body: perSource(input.sources, methodSection) },
    {
      id: 'efficiency',
      title: 'Efficiency and throughput vs cap',
      body: perUnit(units, (u) => {
        const c = chartsFor(u.inputs);
        return `${figure(c.eff)}${figure(c.thr)}${capTable(u.g)}`;
      }),
    },
    // Only when the report was asked for with a tariff (caplab report --price-per-mwh ..., the Results page's).
    ...(input.sources.some((s) => s.analysis.cost) ? [{ id: 'cost', title: 'Cost and carbon', body: perUnit(units, (u) => costSection(u.src.analysis, u.g)) }] : []),
    { id: 'pareto', title: 'Pareto front', body: perUnit(units, (u) => figure(chartsFor(u.inputs).par)) },
    { id: 'clocks', title: 'Clocks and throttling vs cap', body: perUnit(units, (u) => clocksSection(u.g)) },
    { id: 'sensitivity', title: 'Overhead sensitivity', body: perUnit(units, (u) => sensitivitySection(u.g)) },
    { id: 'flags', title: 'Flags and what they mean', body: perUnit(units, (u) => flagsSection(u.g, u.src.analysis)) },
    { id: 'runs', title: 'Runs', body: perUnit(units, (u) => runsSection(u.src.analysis, u.g)) },
    { id: 'raw', title: 'Appendix: raw summary', body: perSource(input.sources, (s) => rawSection(s.analysis)), appendix: true },
  );
  return out;
}

/** A section of a report document: numbered, or an appendix (lettered, on a new page). */
export interface Section {
  id: string;
  title: string;
  body: string;
  appendix?: boolean;
}

/** The document every report shares: cover (kicker, title, facts, a note), contents, numbered sections. */
export function reportDocument(d: { title: string; paper: Paper; kicker: string; facts: [string, string][]; note?: string; sections: Section[] }): string {
  const body = d.sections
    .map((s, i) => `<section id="${s.id}" class="${s.appendix ? 'appendix' : ''}"><h2><span class="num">${s.appendix ? 'A' : i + 1}</span> ${h(s.title)}</h2>${s.body}</section>`)
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${h(d.title)}</title>
<style>${REPORT_CSS(d.paper)}</style></head>
<body class="paper-${d.paper}">
<header class="cover">
<p class="kicker">${h(d.kicker)}</p>
<h1>${h(d.title)}</h1>
<table class="kv cover-kv"><tbody>
${d.facts.map(([k, v]) => `<tr><th>${h(k)}</th><td>${h(v)}</td></tr>`).join('\n')}
</tbody></table>
${d.note ?? ''}
</header>
<nav class="toc" aria-label="Contents"><h2>Contents</h2><ol>${d.sections.map((s) => `<li><a href="#${s.id}">${h(s.title)}</a></li>`).join('')}</ol></nav>
${body}
</body></html>
`;
}

/** "2026-11-30 23:31:05 UTC" from an ISO-8601 time. */
export function reportDate(iso: string): string {
  return iso.replace('T', ' ').replace(/\.\d+Z$|Z$/, ' UTC');
}

/** The report as a complete HTML document. */
export function renderReport(input: ReportInput): string {
  const simulated = input.sources.some((s) => s.sweep?.simulated || s.devices.some((d) => d.simulated));
  return reportDocument({
    title: input.title,
    paper: input.paper,
    kicker: 'CapLab lab report',
    facts: [
      ['date', reportDate(input.generated_at)],
      ['author', input.author ?? '—'],
      ['source', input.sources.map((s) => `${s.label}: ${s.name}`).join(' · ')],
      ['paper', input.paper === 'a4' ? 'A4' : 'Letter'],
    ],
    note: simulated ? '<p class="sim-note">Simulated GPUs: these numbers come from CapLab’s GPU model, not from hardware.</p>' : '',
    sections: sections(input),
  });
}
