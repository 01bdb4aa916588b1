import { readFileSync } from 'node:fs';
import { arch, platform } from 'node:os';

/**
 * The 8-bit weight format that is exact and fast on this CPU. Signed weights run on VNNI
 * (x86) or dot-product (ARM) instructions; on x86 without VNNI, onnxruntime multiplies
 * signed weights with 16-bit saturating instructions, which can clip, so unsigned weights
 * (zero point 128, a slower but exact kernel) are used there and wherever the CPU is unknown.
 * Both formats give the same integer products, hence the same vectors.
 */
export function int8WeightFormat(): 'int8' | 'uint8' {
  if (arch() === 'arm64') return 'int8';
  if (arch() !== 'x64' || platform() !== 'linux') return 'uint8';
  try {
    return /\b(avx512_vnni|avx_vnni)\b/.test(readFileSync('/proc/cpuinfo', 'utf8')) ? 'int8' : 'uint8';
  } catch {
    return 'uint8';
  }
}
