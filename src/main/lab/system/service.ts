// The system slice (src/shared/api/system.ts): is the engine there, and what it is.
import { resolve } from 'node:path';
import type { MethodInput, MethodOutput, SliceApi } from '../../../shared/api';
import { buildCommit } from '../environment/build-info';
import type { EngineContext } from '../engine-context';
import { dataDir } from '../files/paths';
import { VERSION } from '../environment/version';

export class SystemService implements SliceApi<'system'> {
  constructor(private readonly ctx: EngineContext) {}

  async health(_input: MethodInput<'health'>): Promise<MethodOutput<'health'>> {
    return { ok: true, version: VERSION, backend: this.ctx.backend ?? 'auto' };
  }

  async about(_input: MethodInput<'about'>): Promise<MethodOutput<'about'>> {
    return { version: VERSION, commit: buildCommit(), data_dir: dataDir(this.ctx.env), db_path: resolve(this.ctx.dbPath), host: this.ctx.host, node: process.versions.node };
  }
}
