import { StringDecoder } from 'node:string_decoder';
import { describe, expect, it } from 'vitest';
import { DECODE_PIECE_BYTES, pushDecoded } from '../../../src/main/lab/datasets/parse-protocol';

describe('pushDecoded', () => {
  it('decodes a chunk in pieces under the external-string size, characters split at a piece edge kept whole', () => {
    // "é" and "€" (2 and 3 UTF-8 bytes) placed so that each straddles a piece boundary.
    const text = `${'a'.repeat(DECODE_PIECE_BYTES - 1)}é${'b'.repeat(DECODE_PIECE_BYTES - 2)}€,tail\n`;
    const bytes = Buffer.from(text, 'utf8');
    const pieces: string[] = [];
    const decoder = new StringDecoder('utf8');
    pushDecoded(decoder, bytes, (t) => pieces.push(t));
    pieces.push(decoder.end());
    expect(pieces.join('')).toBe(text);
    expect(pieces.length).toBeGreaterThanOrEqual(3);
    for (const p of pieces) expect(Buffer.byteLength(p, 'utf8')).toBeLessThanOrEqual(DECODE_PIECE_BYTES + 3);
  });

  it('gives latin1 text byte for byte, an empty chunk nothing', () => {
    const bytes = Buffer.from(Array.from({ length: 3 * DECODE_PIECE_BYTES + 17 }, (_, i) => 32 + (i % 90)));
    const pieces: string[] = [];
    const decoder = new StringDecoder('latin1');
    pushDecoded(decoder, bytes, (t) => pieces.push(t));
    pushDecoded(decoder, Buffer.alloc(0), (t) => pieces.push(t));
    expect(pieces).toHaveLength(4);
    expect(pieces.join('')).toBe(bytes.toString('latin1'));
  });
});
