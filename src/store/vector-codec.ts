import { EngramError } from '../model/errors.js';

const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/**
 * Encodes a vector as little-endian float32 bytes (the on-disk format of every backend).
 * The returned buffer is a copy; later changes to `vector` do not affect it.
 */
export function encodeVector(vector: Float32Array): Buffer {
  const out = Buffer.alloc(vector.length * 4);
  if (LITTLE_ENDIAN) {
    out.set(new Uint8Array(vector.buffer, vector.byteOffset, vector.byteLength));
  } else {
    for (let i = 0; i < vector.length; i++) out.writeFloatLE(vector[i] as number, i * 4);
  }
  return out;
}

/**
 * Decodes little-endian float32 bytes. Throws EngramError('CORRUPT_VECTOR') when the byte
 * length is not `dim * 4` (or not a multiple of 4 when `dim` is unknown).
 */
export function decodeVector(bytes: Uint8Array, dim: number | null, id?: string): Float32Array {
  const ok = dim === null ? bytes.byteLength % 4 === 0 : bytes.byteLength === dim * 4;
  if (!ok) {
    const expected = dim === null ? 'a multiple of 4' : String(dim * 4);
    throw new EngramError('CORRUPT_VECTOR', `stored vector has ${bytes.byteLength} bytes, expected ${expected}`, {
      details: { id, bytes: bytes.byteLength, dim },
    });
  }
  const n = bytes.byteLength / 4;
  const out = new Float32Array(n);
  if (LITTLE_ENDIAN) {
    new Uint8Array(out.buffer).set(bytes);
  } else {
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    for (let i = 0; i < n; i++) out[i] = view.getFloat32(i * 4, true);
  }
  return out;
}
