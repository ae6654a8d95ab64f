// The metadata.csv beside an NLR aggregated workload's results/ (DOI 10.7799/3025227, layout in DOMAIN.md): one row
// per results file, naming it by its number, with that experiment's parameters: the node count for training
// workloads (the paper's replicates per node count), prompts, output tokens, request rate or dataset for inference.
// The dataset's documentation names no column, so the file column is found by its content: the first column whose
// cells each name a different results file (`1`, `000001`, `000001.parquet`, `results/000001.parquet`), passing over
// a node-count column that happens to look like one. Every other column is a parameter, whatever its name or
// number; a node-count column (`nodes`, `num_nodes`, `node_count`, `n_nodes`) must hold whole numbers.
import { cutText } from '../../../shared/format';
import { splitFields } from '../scan';
import { ImportError } from '../report';

export interface NlrMetadataRow {
  /** 1-based line in metadata.csv. */
  line: number;
  /** The parameters: every cell but the file column's, as header -> text. */
  cells: [string, string][];
}

export interface NlrMetadata {
  /** The column that names the results files. */
  file_column: string;
  /** Rows by results file number. */
  rows: Map<number, NlrMetadataRow>;
}

/** A node-count column's name (nodes, num_nodes, node_count, n_nodes, "Nodes"). */
const NODE_COLUMN = /^(n_|num_)?nodes?(_count)?$/i;

/** The number of a results file named by a cell or a file stem; null when it names none. */
export function resultsFileNumber(v: string): number | null {
  const m = /^(?:.*\/)?(\d{1,12})(?:\.parquet)?$/i.exec(v.trim());
  return m ? Number(m[1]) : null;
}

/** Parses metadata.csv; ImportError names `file`, the line and the column that is missing or wrong. */
export function parseNlrMetadata(text: string, file: string): NlrMetadata {
  const lines = text
    .replace(/^\uFEFF/, '')
    .split(/\r?\n/)
    .map((l, i) => ({ l, line: i + 1 }))
    .filter((x) => x.l.trim() !== '');
  if (lines.length === 0) throw new ImportError(file, null, 'empty file: expected a header and one row per results file');
  const names = splitFields(lines[0]!.l, ',').map((n, i) => n.trim() || `column ${i + 1}`);
  const twice = names.find((n, i) => names.indexOf(n) !== i);
  if (twice !== undefined) throw new ImportError(file, 1, `column ${twice} is named twice in the header (${names.join(', ')})`);
  const body = lines.slice(1).map((x) => ({ line: x.line, cells: splitFields(x.l, ',').map((v) => v.trim()) }));
  if (body.length === 0) throw new ImportError(file, 2, `no rows under the header (${names.join(', ')}): expected one row per results file`);
  // Extra cells beyond the header are kept under their position's name.
  const width = Math.max(names.length, ...body.map((r) => r.cells.length));
  for (let i = names.length; i < width; i++) names.push(`column ${i + 1}`);
  // Candidates: columns whose cells each name a different results file; a node count (1, 2, 4) can look like one.
  const candidates = names
    .map((_, c) => c)
    .filter((c) => {
      const ns = body.map((r) => resultsFileNumber(r.cells[c] ?? ''));
      return ns.every((n) => n !== null) && new Set(ns).size === ns.length;
    });
  const fileCol = candidates.find((c) => !NODE_COLUMN.test(names[c]!)) ?? candidates[0] ?? -1;
  if (fileCol < 0)
    throw new ImportError(
      file,
      1,
      `no column names the results files: expected one (such as id) whose every cell is a results file's number (000001 or 1, as in results/000001.parquet); columns: ${names.join(', ')}`,
    );
  const rows = new Map<number, NlrMetadataRow>();
  for (const r of body) {
    const n = resultsFileNumber(r.cells[fileCol]!)!;
    const cells: [string, string][] = [];
    names.forEach((name, c) => {
      if (c === fileCol) return;
      const v = r.cells[c] ?? '';
      if (NODE_COLUMN.test(name) && v !== '' && !/^\d+$/.test(v)) throw new ImportError(file, r.line, `column ${cutText(name)}: "${cutText(v)}" is not a whole number of nodes`);
      cells.push([name, v]);
    });
    rows.set(n, { line: r.line, cells });
  }
  return { file_column: names[fileCol]!, rows };
}

/** The row of the results file with this stem; ImportError naming metadata.csv when it has none. */
export function metadataRowOf(meta: NlrMetadata, stem: string, metaFile: string): NlrMetadataRow {
  const n = resultsFileNumber(stem);
  const row = n === null ? undefined : meta.rows.get(n);
  if (!row) throw new ImportError(metaFile, null, `no row for results/${stem}.parquet in column ${meta.file_column} (it names ${[...meta.rows.keys()].slice(0, 8).join(', ')}${meta.rows.size > 8 ? ', ...' : ''})`);
  return row;
}
