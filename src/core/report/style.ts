import type { Paper } from './model';

/**
 * Print CSS: light theme, the paper size, sections and figures that do not split across pages, table headers
 * repeated on each page and rows never cut. Page numbers are the printer's footer (Chromium's page counters).
 */
export const REPORT_CSS = (paper: Paper) => `
@page { size: ${paper === 'a4' ? 'A4' : 'Letter'}; margin: 16mm 14mm 18mm 14mm; }
:root { color-scheme: light; }
* { box-sizing: border-box; }
html { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
body { font: 9pt/1.35 Helvetica, Arial, sans-serif; color: #1f2328; background: #fff; margin: 0 auto; max-width: 182mm; padding: 8mm 0; }
@media print { body { padding: 0; max-width: none; } }
h1 { font-size: 22pt; margin: 2mm 0 4mm; }
h2 { font-size: 14pt; margin: 0 0 3mm; border-bottom: 1.5px solid #4e9af1; padding-bottom: 1mm; break-after: avoid; }
h2 .num { color: #4e9af1; margin-right: 2mm; }
h3 { font-size: 11.5pt; margin: 5mm 0 2mm; break-after: avoid; }
section { margin-top: 8mm; }
section#answer, section#segments, section#efficiency, section.appendix { break-before: page; }
.kicker { text-transform: uppercase; letter-spacing: 0.12em; color: #57606a; font-size: 9pt; margin: 0; }
.cover { padding-top: 20mm; }
.lead { font-size: 11.5pt; }
.sim-note { border-left: 3px solid #f28e2b; padding: 2mm 3mm; background: #fff5eb; }
.toc ol { font-size: 11pt; line-height: 1.9; }
.toc a { color: #1f2328; text-decoration: none; }
table { border-collapse: collapse; width: 100%; margin: 2mm 0 4mm; font-size: 8pt; }
thead { display: table-header-group; }
tr { break-inside: avoid; page-break-inside: avoid; }
th, td { text-align: left; padding: 1.2mm 1.6mm; border-bottom: 0.5px solid #d0d7de; vertical-align: top; overflow-wrap: break-word; }
th { background: #f3f5f8; font-weight: 600; overflow-wrap: normal; }
td:first-child, table.caps th:nth-last-child(-n+2) { white-space: nowrap; }
table.kv th, table.kv td:first-child { width: 34mm; color: #57606a; font-weight: 600; background: none; }
table.kv thead { display: none; }
/* An interval ("288541 J to 302015 J") reads as one figure: never broken over lines. */
table.kv.tune td:nth-child(3) { white-space: nowrap; }
table.method { break-inside: avoid; }
.json { overflow-wrap: anywhere; }
table.small { font-size: 7.4pt; }
table.tiny { font-size: 6.2pt; }
table.tiny td, table.tiny th { padding: 0.8mm 1mm; white-space: nowrap; overflow-wrap: normal; }
.best-cap { font-size: 11pt; white-space: nowrap; }
.no-answer { color: #9a6700; white-space: nowrap; }
.fix { color: #9a6700; }
figure.chart-figure { margin: 3mm 0 5mm; break-inside: avoid; page-break-inside: avoid; }
.chart-title { font-weight: 600; font-size: 10.5pt; margin-bottom: 1mm; }
svg.chart { width: 100%; height: 72mm; display: block; }
.caption { font-size: 8pt; color: #57606a; margin: 1mm 0 0; }
pre.plan { font: 7.4pt/1.3 Menlo, Consolas, monospace; background: #f6f8fa; border: 0.5px solid #d0d7de; padding: 2mm 3mm; white-space: pre-wrap; }
.flag { font-weight: 600; }
.flag.error { color: #c62828; }
.flag.warn { color: #b35c00; }
ul.small { font-size: 8.5pt; }
code { font: 7.8pt Menlo, Consolas, monospace; }
table.segments :is(td, th):nth-child(n+3):nth-child(-n+5), table.segments :is(td, th):nth-child(n+8):nth-child(-n+10) { text-align: right; white-space: nowrap; }
table.segments td:nth-child(2) { min-width: 26mm; }
table.segments td:last-child { min-width: 30mm; }
table.segments .method { white-space: nowrap; }
table.per-device td:not(:first-child), table.per-device th:not(:first-child) { text-align: right; }
.unit-alt { color: #57606a; font-size: 6.8pt; }
.sub { padding-left: 3mm; color: #57606a; }
.footnote { color: #57606a; font-size: 7.6pt; margin-bottom: 1mm; }
ul.bases { font-size: 6.8pt; color: #57606a; margin-top: 0; padding-left: 5mm; }
`;
