// The engine's door: what a face (the CLI, the browser host, the Electron shell) may use of src/main/lab. Faces
// import this module and src/shared, nothing else under lab/ (lint rule in eslint.config.js); the engine's own
// modules import each other directly.
export { Engine, type EngineOptions, type BeginOptions } from './engine';
export * from './basics';
export type { FileExport, FileExportHooks, ReportFilesRequest, ReportFilesResult } from './exporters/service';
export type { ReportJob } from './exporters/report-files';
export type { ReportSubject } from './report/build';
export type { SampleSelection } from './store/sample-stream';
export type { TimeFormat } from './exporters/samples';
export type { PtyHandler } from './gpu/lab-backend';
export { runDoctor } from './doctor';
export { readTariffFile, type CostedAnalysisOptions } from './analysis/cost';
// The printing contract: the Electron shell prints with its own renderer (printToPDF) under the engine's footer.
export { footerTemplate } from './exporters/chromium';
export type { PdfPrinter } from './report/write';
// A plan read once (`caplab sweep` reads it before it opens the database, then hands it to beginSweep).
export { readPlan, type CheckedPlan } from './sweep/plan-verdict';
