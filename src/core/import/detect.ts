// Auto-detection from a file's first bytes (and name, for formats whose header is not distinctive).
import type { ImportFormat } from '../../shared/dataset';
import { DCGM_HEADER } from './formats/dcgm-dmon';
import { FACILITY_HEADER } from './formats/facility';
import { NVIDIA_SMI_HEADER } from './formats/nvidia-smi';
import { WATTAMETER_HEADER } from './formats/wattameter';
import { ZEUS_HEADER } from './formats/zeus';

/** The format of a file from its head (first few KiB), or null with nothing recognised. */
export function detectFormat(head: string, name: string): ImportFormat | null {
  const lines = head.split(/\r?\n/).map((l) => l.trim()).filter((l) => l.length > 0);
  const first = lines.find((l) => !l.startsWith('#') || WATTAMETER_HEADER.test(l) || DCGM_HEADER.test(l)) ?? '';
  const trimmed = head.trimStart();
  if (head.startsWith('PAR1')) return /\.parquet$/i.test(name) ? 'nlr-parquet' : null;
  if (trimmed.startsWith('{')) {
    if (/^\{\s*"schema"\s*:\s*"caplab\.export\//.test(trimmed)) return 'caplab-json';
    if (/"resultType"\s*:/.test(head) || /"status"\s*:\s*"success"/.test(head)) return 'prometheus';
    if (/"caplab"|"format"\s*:\s*"caplab/.test(head)) return 'caplab-json';
    return null;
  }
  if (lines.some((l) => WATTAMETER_HEADER.test(l))) return 'wattameter';
  if (DCGM_HEADER.test(first)) return 'dcgm-dmon';
  if (ZEUS_HEADER.test(first)) return 'zeus';
  if (/^timestamp,project_name,run_id,/.test(first) || (/(^|,)energy_consumed(,|$)/.test(first) && /(^|,)timestamp(,|$)/.test(first))) return 'codecarbon';
  if (FACILITY_HEADER.test(first)) return 'facility-csv';
  if (NVIDIA_SMI_HEADER.test(first) && first.includes(',')) return 'nvidia-smi';
  // Headerless nvidia-smi rows start with its timestamp: "2026/11/30 08:45:57.673, ..."
  if (/^\d{4}\/\d{2}\/\d{2} \d{2}:\d{2}:\d{2}\.\d{3}\s*,/.test(first)) return 'nvidia-smi';
  if (/nvidia-smi|gpu.*\.csv$/i.test(name) && first.includes(',')) return 'nvidia-smi';
  return null;
}
