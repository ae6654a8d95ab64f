// The NLR aggregated datasets' metadata.csv: the column naming the results files is found by its content, any other
// columns (node count for training, prompts / tokens / request rate for inference, extras) are kept as parameters,
// and a table without a file column, with a file named twice or a node count that is not whole fails naming the
// file, line and column.
import { describe, expect, it } from 'vitest';
import { metadataRowOf, parseNlrMetadata, resultsFileNumber } from '../../../src/core/import/formats/nlr-metadata';
import { ImportError } from '../../../src/core/import';

const F = 'llama2-70b-lora/metadata.csv';
const failure = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(ImportError);
    return (e as Error).message;
  }
  throw new Error('no error');
};

describe('NLR metadata.csv', () => {
  it('finds the file column by content, in any position and spelling of the number, and keeps every other column', () => {
    const m = parseNlrMetadata('\uFEFFnodes,replicate,file,notes\r\n1,1,results/000001.parquet,first\r\n2,1,000002.parquet,"a, quoted note"\r\n4,2,3,\r\n', F);
    // nodes (1, 2, 4) could name files too, replicate repeats: the file column is `file`.
    expect(m.file_column).toBe('file');
    expect(metadataRowOf(m, '000002', F).cells).toEqual([
      ['nodes', '2'],
      ['replicate', '1'],
      ['notes', 'a, quoted note'],
    ]);
    expect(metadataRowOf(m, '000003', F).line).toBe(4);
  });

  it('takes the id column of training metadata (node count beside it), with extra columns and cells kept', () => {
    const m = parseNlrMetadata('id,nodes,replicate,start_time\n000001,1,1,2025-05-01T10:00:00\n000002,2,1,2025-05-01T12:00:00,late\n', F);
    expect(m.file_column).toBe('id');
    expect(metadataRowOf(m, '000002', F)).toEqual({
      line: 3,
      cells: [
        ['nodes', '2'],
        ['replicate', '1'],
        ['start_time', '2025-05-01T12:00:00'],
        ['column 5', 'late'],
      ],
    });
  });

  it('reads inference metadata (prompts, output tokens, request rate) with no node column', () => {
    const m = parseNlrMetadata('experiment,dataset,request_rate,output_len\n1,sharegpt,inf,256\n2,sonnet,8,1024\n', F);
    expect(m.file_column).toBe('experiment');
    expect(metadataRowOf(m, '000001', F).cells).toEqual([
      ['dataset', 'sharegpt'],
      ['request_rate', 'inf'],
      ['output_len', '256'],
    ]);
  });

  it('errors naming the file and the missing column when no column names the results files', () => {
    expect(failure(() => parseNlrMetadata('workload,nodes_label\nllama,one\nllama,two\n', F))).toBe(
      `${F}:1: no column names the results files: expected one (such as id) whose every cell is a results file's number (000001 or 1, as in results/000001.parquet); columns: workload, nodes_label`,
    );
  });

  it('errors naming the file, line and column for a node count that is not whole, no rows, a results file without a row', () => {
    // A file named twice makes no column a file column.
    expect(failure(() => parseNlrMetadata('id,label\n1,a\n01,b\n', F))).toMatch(/^llama2-70b-lora\/metadata\.csv:1: no column names the results files/);
    expect(failure(() => parseNlrMetadata('id,num_nodes\n1,1\n2,two\n', F))).toBe(`${F}:3: column num_nodes: "two" is not a whole number of nodes`);
    expect(failure(() => parseNlrMetadata('id,nodes\n', F))).toBe(`${F}:2: no rows under the header (id, nodes): expected one row per results file`);
    expect(failure(() => parseNlrMetadata('', F))).toBe(`${F}: empty file: expected a header and one row per results file`);
    // Found by the fuzz suite: a table whose header line is gone reads its first row as the header.
    expect(failure(() => parseNlrMetadata('1,1\n2,2\n', F))).toBe(`${F}:1: column 1 is named twice in the header (1, 1)`);
    const m = parseNlrMetadata('id,nodes\n1,1\n2,2\n', F);
    expect(failure(() => metadataRowOf(m, '000007', F))).toBe(`${F}: no row for results/000007.parquet in column id (it names 1, 2)`);
  });

  it('reads a results file number from a cell or a stem', () => {
    expect([resultsFileNumber('000012'), resultsFileNumber('12'), resultsFileNumber('results/000012.parquet'), resultsFileNumber('x12'), resultsFileNumber('')]).toEqual([12, 12, 12, null, null]);
  });
});
