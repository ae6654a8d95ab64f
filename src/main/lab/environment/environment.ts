import { arch, hostname, release, type } from 'node:os';
import { VERSION } from './version';
import { buildCommit } from './build-info';
import type { ExportEnvironment } from '../../../shared/export';

/**
 * The software side of a run record, taken when a sweep starts: host, OS, Node.js and CapLab version and commit
 * (the same commit the About dialog shows). GPU identities (UUID, driver, VBIOS) live with the devices; what
 * CapLab cannot see is left out, never guessed.
 */
export function collectEnvironment(): ExportEnvironment {
  return {
    host: hostname(),
    os: `${type()} ${release()} (${arch()})`,
    caplab_version: VERSION,
    caplab_commit: buildCommit(),
    node: process.versions.node,
  };
}
