// A gathered row group of a samples Parquet export, as it crosses to the encoding thread: typed arrays (transferred,
// not copied; hyparquet-writer takes a Float64Array as a DOUBLE column as is) and texts as codes into a small
// dictionary. Kept free of store imports, so the worker thread loads little.

export type NumberColumn = { name: string; values: Float64Array; missing: boolean };
export type TextColumn = { name: string; dict: string[]; codes: Uint32Array };
/** A gathered row group: every column holds exactly `n` rows. */
export interface GatheredGroup {
  n: number;
  columns: (NumberColumn | TextColumn)[];
}

type ColumnData = { name: string; data: Float64Array | (number | null)[] | string[] };

/** The buffers of a gathered group, to transfer to a worker thread. */
export function transferList(g: GatheredGroup): ArrayBuffer[] {
  return g.columns.map((c) => ('values' in c ? c.values.buffer : c.codes.buffer) as ArrayBuffer);
}

/** A gathered group as hyparquet-writer column data; missing readings of an OPTIONAL column become nulls. */
export function columnData(g: GatheredGroup): ColumnData[] {
  return g.columns.map((c) => {
    if ('values' in c) return { name: c.name, data: c.missing ? Array.from(c.values, (v) => (v === v ? v : null)) : c.values };
    const data = new Array<string>(g.n);
    for (let i = 0; i < g.n; i++) data[i] = c.dict[c.codes[i]!]!;
    return { name: c.name, data };
  });
}
