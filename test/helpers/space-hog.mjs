// Keeps a filesystem full: writes zeros to the file named by argv[2] until ENOSPC, then tries again every
// millisecond, so that whatever another process frees there is taken at once. Prints "full" the first time the
// disk is full. Runs until killed.
import { openSync, writeSync } from 'node:fs';

const fd = openSync(process.argv[2], 'w');
const chunks = [64 * 1024, 4096, 512].map((n) => Buffer.alloc(n));
const pause = new Int32Array(new SharedArrayBuffer(4));
let told = false;
for (;;) {
  let wrote = false;
  for (const chunk of chunks) {
    try {
      writeSync(fd, chunk);
      wrote = true;
      break;
    } catch (e) {
      if (e.code !== 'ENOSPC') throw e;
    }
  }
  if (wrote) continue;
  if (!told) {
    process.stdout.write('full\n');
    told = true;
  }
  Atomics.wait(pause, 0, 0, 1);
}
