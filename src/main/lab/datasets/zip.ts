// Zip archives as import inputs. The central directory lists the members; a member is inflated as a stream when it
// is read, so neither the archive nor a member is ever held in memory. Refused with an error naming the archive
// (and member): not a zip or truncated (no central directory), names that are absolute or climb out with "..",
// encrypted members, compression ratios only a zip bomb has, and members whose size or CRC-32 do not match the record.
import { PassThrough, pipeline, type Readable } from 'node:stream';
import { crc32, createInflateRaw } from 'node:zlib';
import yauzl from 'yauzl';
import { ImportError } from '../../../core/import';

/** Inflated / compressed size above which a member (or the whole archive) is taken for a zip bomb. Text logs reach ~30. */
export const MAX_ZIP_RATIO = 200;
/** Members smaller than this are not ratio-checked (a tiny file of one repeated byte is harmless). */
const RATIO_FLOOR_BYTES = 1 << 20;

export interface ZipMember {
  /** The member's path inside the archive, `/`-separated. */
  name: string;
  bytes: number;
  open(): Promise<AsyncIterable<Buffer>>;
}

/** A member's bytes, checked against the size the archive records for it (a corrupt or lying member fails). */
async function* sized(src: AsyncIterable<Buffer>, expected: number, crc: number, where: string): AsyncIterable<Buffer> {
  let n = 0;
  let sum = 0;
  for await (const c of src) {
    n += c.length;
    sum = crc32(c, sum);
    if (n > expected) throw new ImportError(where, null, `member inflates to more than the ${expected} bytes the archive records: corrupt or a zip bomb`);
    yield c;
  }
  if (n !== expected) throw new ImportError(where, null, `member inflates to ${n} bytes, the archive records ${expected}: corrupt or truncated`);
  // A stored member's flipped bytes change no size: only its checksum tells.
  if (sum !== crc) throw new ImportError(where, null, `member data does not match the CRC-32 the archive records (${hex(sum)}, recorded ${hex(crc)}): corrupt`);
}

const hex = (x: number) => x.toString(16).padStart(8, '0');

export interface ZipArchive {
  members: ZipMember[];
  close(): void;
}

/** Reads the central directory of `path`; throws ImportError for the cases above. */
export function openZip(path: string, fileBytes: number): Promise<ZipArchive> {
  const fail = (msg: string) => new ImportError(path, null, msg);
  return new Promise((resolve, reject) => {
    yauzl.open(path, { lazyEntries: true, autoClose: false, validateEntrySizes: true }, (err, zip) => {
      if (err || !zip) {
        const m = err?.message ?? 'unreadable';
        reject(fail(/central directory|signature/i.test(m) ? `not a zip archive, or truncated (${m})` : `cannot read zip archive: ${m}`));
        return;
      }
      const members: ZipMember[] = [];
      let inflated = 0;
      const stop = (e: Error) => {
        zip.close();
        reject(e);
      };
      zip.on('error', (e: Error) => stop(fail(/invalid relative path|absolute path/i.test(e.message) ? `unsafe member name (${e.message}): refused` : `cannot read zip archive: ${e.message}`)));
      zip.on('entry', (entry: yauzl.Entry) => {
        const name = entry.fileName;
        if (name.endsWith('/')) return zip.readEntry();
        if (entry.isEncrypted()) return stop(fail(`member ${name} is encrypted`));
        const ratio = entry.uncompressedSize / Math.max(1, entry.compressedSize);
        if (entry.uncompressedSize > RATIO_FLOOR_BYTES && ratio > MAX_ZIP_RATIO)
          return stop(fail(`member ${name} inflates ${ratio.toFixed(0)}-fold (${entry.uncompressedSize} bytes from ${entry.compressedSize}): refused as a zip bomb (limit ${MAX_ZIP_RATIO})`));
        inflated += entry.uncompressedSize;
        if (inflated > RATIO_FLOOR_BYTES && inflated / Math.max(1, fileBytes) > MAX_ZIP_RATIO)
          return stop(fail(`members inflate to ${inflated} bytes from a ${fileBytes}-byte archive: refused as a zip bomb (limit ${MAX_ZIP_RATIO}-fold)`));
        members.push({
          name,
          bytes: entry.uncompressedSize,
          // Inflated here rather than by yauzl: node's zlib ends or fails on corrupt data, where yauzl's filter can stall.
          open: () =>
            new Promise((res, rej) => {
              const where = `${path}/${name}`;
              const method = entry.compressionMethod;
              if (method !== 0 && method !== 8) return rej(new ImportError(where, null, `compression method ${method} is not supported (deflate or stored only)`));
              // yauzl refuses a decompress option on a stored member (by throwing, not through the callback).
              const options = { decompress: method === 8 ? false : null, decrypt: null, start: null, end: null };
              const done = (e: Error | null, raw?: Readable) => {
                if (e || !raw) return rej(new ImportError(where, null, `cannot read member: ${e?.message ?? 'no stream'}`));
                // yauzl's own stream (fd-slicer's) does not iterate on its own: piped, like the inflated one.
                const out = method === 8 ? createInflateRaw() : new PassThrough();
                // Errors surface through the piped stream's iteration; the callback only keeps them from going unhandled.
                pipeline(raw, out, () => {});
                res(sized(out, entry.uncompressedSize, entry.crc32, where));
              };
              try {
                zip.openReadStream(entry, options as yauzl.ZipFileOptions, done);
              } catch (e) {
                done(e as Error);
              }
            }),
        });
        zip.readEntry();
      });
      zip.on('end', () => resolve({ members, close: () => zip.close() }));
      zip.readEntry();
    });
  });
}

/** True when the file starts with a zip local header or end-of-directory record (or is named .zip). */
export function looksLikeZip(name: string, head: Buffer): boolean {
  if (/\.zip$/i.test(name)) return true;
  return head.length >= 4 && head[0] === 0x50 && head[1] === 0x4b && (head[2] === 3 || head[2] === 5) && (head[3] === 4 || head[3] === 6);
}
