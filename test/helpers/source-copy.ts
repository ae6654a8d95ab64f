// A copy of this checkout's CLI (src, bin, package.json; node_modules linked) in `dir`, for tests that edit the
// source and run the real CLI from the copy.
import { cpSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';

export function copySourceTree(dir: string): void {
  const root = process.cwd();
  cpSync(join(root, 'src'), join(dir, 'src'), { recursive: true });
  cpSync(join(root, 'bin'), join(dir, 'bin'), { recursive: true });
  cpSync(join(root, 'package.json'), join(dir, 'package.json'));
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
}
