// One Parquet file being written row group by row group with hyparquet-writer, through a sink that leaves in a few
// large writes. Used on the export's own thread or inside the export's worker thread (parquet-export-worker.ts).
import { closeSync, openSync, writeSync } from 'node:fs';
import { ByteWriter, ParquetWriter } from 'hyparquet-writer';
import { columnData, type GatheredGroup } from './parquet-group';

type WriterOptions = ConstructorParameters<typeof ParquetWriter>[0];
/** What a Parquet file is opened with (plain data: it crosses to a worker thread). */
export type ParquetFileOptions = Pick<WriterOptions, 'schema' | 'codec' | 'statistics' | 'kvMetadata' | 'createdBy'>;

/** A hyparquet-writer sink writing to a file descriptor whenever 8 MB are buffered: few, large writes. */
function fileSink(fd: number): ByteWriter {
  const w = new ByteWriter(1 << 23);
  const flush = () => {
    let done = 0;
    while (done < w.index) done += writeSync(fd, new Uint8Array(w.buffer, done, w.index - done));
    w.index = 0;
  };
  const grow = w.ensure.bind(w);
  w.ensure = (size: number) => {
    if (w.index + size > w.buffer.byteLength && w.index > 0) flush();
    grow(size);
  };
  w.finish = flush;
  return w;
}

export class ParquetFile {
  private fd: number | null;
  private readonly writer: ParquetWriter;

  constructor(path: string, o: ParquetFileOptions) {
    this.fd = openSync(path, 'w');
    try {
      this.writer = new ParquetWriter({ ...o, writer: fileSink(this.fd) });
    } catch (e) {
      this.close();
      throw e;
    }
  }

  write(g: GatheredGroup): void {
    if (g.n > 0) void this.writer.write({ columnData: columnData(g), rowGroupSize: g.n });
  }

  /** Writes the footer and closes the file. */
  finish(): void {
    void this.writer.finish();
    this.close();
  }

  /** Closes the file (idempotent); what was written stays for the caller to remove. */
  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }
}
