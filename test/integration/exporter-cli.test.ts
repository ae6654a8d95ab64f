// `caplab exporter` when it cannot listen: one message naming the port, and the process ends (its sampling timer
// used to keep it running after the error).
import { afterAll, describe, expect, it } from 'vitest';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { startCli } from '../helpers/cli';
import { tempDir } from '../helpers/tmp';

const tmp = tempDir('caplab-exporter-cli-');
afterAll(() => tmp.cleanup());

describe('caplab exporter', () => {
  it('on a port already in use: exit 1 naming the port, and the process ends', { timeout: 90_000 }, async () => {
    const taken = createServer();
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', r));
    const port = (taken.address() as AddressInfo).port;
    try {
      const env = { CAPLAB_DATA_DIR: tmp.dir, CAPLAB_SIM_STATE_DIR: join(tmp.dir, 'sim') };
      const cli = startCli(['exporter', '--backend', 'sim', '--port', String(port)], env);
      // Generous on a loaded machine; a process that hangs is killed here and fails the exit-code check below.
      const killer = setTimeout(() => cli.child.kill('SIGKILL'), 60_000);
      const r = await cli.done;
      clearTimeout(killer);
      expect(r.signal, r.stderr).toBeNull();
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`caplab exporter: port ${port} on 127.0.0.1 is in use; pick another with --port`);
    } finally {
      taken.close();
    }
  });
});
