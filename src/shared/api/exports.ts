import { z } from 'zod';
import { ExportedFile, ExportRequest } from '../export';

/** The app's Export menu: reports and exports as files to save. */
export const exportMethods = {
  /** A report (PDF, HTML) or an export (CSV, JSON) of a sweep or a comparison, with the page's analysis options. */
  exportFile: { input: ExportRequest, output: ExportedFile },
} as const;

export const exportEvents = {
  /** An app export of samples: rows written of (about) the total. */
  'export.progress': z.object({ format: z.string(), done: z.number().int(), total: z.number().int() }),
} as const;
