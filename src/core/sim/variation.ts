// Part-to-part variation of simulated GPUs on different (virtual) cluster nodes. Real cards of one model differ by
// several percent in power at the same clock (published node-to-node studies); simulated GPUs of a named node get a
// fixed, deterministic share of that, so a cluster sweep on simulated nodes shows a spread to analyse. GPUs of no
// node (a workstation sweep) are the preset exactly, so the calibrated figures are unchanged there.
import type { GpuPreset } from './presets';

/** Half-width of the spread of dynamic power across parts: +-4 %. */
export const PART_SPREAD = 0.04;

function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/** Dynamic-power factor of GPU `index` of `node`: 1 without a node, else in [1 - PART_SPREAD, 1 + PART_SPREAD]. */
export function partScale(node: string | undefined, index: number): number {
  if (!node) return 1;
  const u = fnv1a(`${node}/${index}`) / 0x100000000;
  return 1 + PART_SPREAD * (2 * u - 1);
}

/** The preset as this node's part: a hungrier part draws more at the same clock, so a cap slows it more. */
export function nodePart(preset: GpuPreset, node: string | undefined, index: number): GpuPreset {
  const s = partScale(node, index);
  return s === 1 ? preset : { ...preset, dynamic_scale: preset.dynamic_scale * s };
}
