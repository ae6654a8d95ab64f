// What the import CLI tests share: a temp folder removed after the file, a fresh database per call, the fixtures.
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { tempDir } from './tmp';

export function importTestEnv(prefix: string) {
  const tmp = tempDir(prefix);
  afterAll(() => tmp.cleanup());
  let n = 0;
  return {
    tmp,
    fx: (f: string) => join('test/fixtures/import', f),
    freshDb: () => ({ CAPLAB_DB: join(tmp.dir, `lab-${++n}.db`) }),
  };
}

export const json = <T>(s: string): T => JSON.parse(s) as T;
