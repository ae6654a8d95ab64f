// The engine's door: what a face (the CLI, the browser host, the Electron shell) may use of src/main/lab. Faces
// import this module and src/shared, nothing else under lab/ (lint rule in eslint.config.js); the engine's own
// modules import each other directly.
export { Engine, type EngineOptions } from './engine';
export type { BeginOptions } from './engine-context';
export * from './basics';
export type { FileExport, FileExportHooks, ReportFilesRequest, ReportFilesResult } from './exporters/service';
export type { ReportJob } from './exporters/report-files';
export type { ReportSubject } from './report/build';
export type { SampleSelection } from './store/sample-stream';
export type { TimeFormat } from './exporters/samples';
export type { PtyHandler } from './gpu/lab-backend';
export { runDoctor } from './doctor/doctor';
export { readTariffFile, type CostedAnalysisOptions } from './analysis/cost';
// Printing: the CLI prints with headless Chromium, the Electron shell with its own renderer (printToPDF), both under
// the engine's footer.
export { findBrowser, footerTemplate, NoBrowserError, printPdfWithChromium } from './exporters/chromium';
export { PrintError, writeReportFiles, type PdfPrinter, type ReportTargets } from './report/write';
export { checkWritable, ExportError } from './files/atomic';
// What the faces that open an engine also read themselves: plan files, the workloads' resources, cluster job folders.
export { planFromYaml, readPlanFile, readPlanValue } from './sweep/plan-file';
export { PlanError } from './input/errors';
// A plan read once (`caplab sweep` reads it before it opens the database, then hands it to beginSweep).
export { readPlan, type CheckedPlan } from './sweep/plan-verdict';
export { resourcesDir } from './runner/workloads';
export { prepareJob } from './cluster/submit';
export { LeaseHeldError } from './lease/device-lease';
export { TUNE_DEFAULTS, type TuneReport } from './tune/session';
export { tuneReportText } from './tune/report-text';
