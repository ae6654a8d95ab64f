// The desktop app's packaging (issue #32 item 8): electron-builder.config.mjs builds AppImage and deb from out/, with
// Electron's fuses flipped (no RunAsNode, no NODE_OPTIONS, no --inspect, code only from an integrity-checked asar).
// The configuration is checked as data, without electron-builder installed; the build itself, and the fuses read
// back from the packed binary, where electron-builder and the Electron binary are both present.
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { tempDir } from '../helpers/tmp';

const root = process.cwd();

/** What the configuration file exports, as far as this test reads it (it is plain JavaScript, loaded as electron-builder loads it). */
interface BuilderConfig {
  appId: string;
  asar: boolean;
  files: string[];
  asarUnpack: string[];
  extraResources: { from: string; to: string }[];
  electronFuses: Record<string, boolean>;
  linux: { target: string[] };
}
const loaded = (await import(pathToFileURL(join(root, 'electron-builder.config.mjs')).href)) as { default: BuilderConfig; electronFuses: Record<string, boolean> };
const config = loaded.default;
const electronFuses = loaded.electronFuses;
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string>; devDependencies: Record<string, string> };

describe('electron-builder configuration', () => {
  it('builds AppImage and deb from the electron-vite output, as one asar', () => {
    expect(config.linux.target).toEqual(['AppImage', 'deb']);
    expect(config.asar).toBe(true);
    expect(config.files).toContain('out/**/*');
    expect(config.appId).toBe('org.caplab.app');
  });

  it('flips the fuses that would let the binary run as Node, take NODE_OPTIONS or --inspect, or load code from outside its asar', () => {
    expect(config.electronFuses).toBe(electronFuses);
    expect(electronFuses).toMatchObject({
      runAsNode: false,
      enableNodeOptionsEnvironmentVariable: false,
      enableNodeCliInspectArguments: false,
      enableEmbeddedAsarIntegrityValidation: true,
      onlyLoadAppFromAsar: true,
    });
    // Every fuse is set explicitly (no default left to a future Electron).
    expect(Object.keys(electronFuses).sort()).toEqual(
      ['enableCookieEncryption', 'enableEmbeddedAsarIntegrityValidation', 'enableNodeCliInspectArguments', 'enableNodeOptionsEnvironmentVariable', 'grantFileProtocolExtraPrivileges', 'loadBrowserProcessSpecificV8Snapshot', 'onlyLoadAppFromAsar', 'runAsNode'].sort(),
    );
  });

  it('unpacks what the OS loads (native addons, node-pty) and ships the workload resources as real files', () => {
    for (const p of ['**/*.node', 'node_modules/node-pty/**', 'node_modules/koffi/**', 'node_modules/better-sqlite3/**']) expect(config.asarUnpack).toContain(p);
    expect(config.extraResources).toEqual([expect.objectContaining({ from: 'resources', to: 'resources' })]);
    expect(existsSync(join(root, 'resources', 'workloads'))).toBe(true);
  });

  it('npm run dist builds the renderer first, then packs with this configuration', () => {
    expect(pkg.scripts.dist).toBe('electron-vite build && electron-builder --config electron-builder.config.mjs --linux');
    expect(pkg.devDependencies['electron-builder']).toMatch(/^\^26\./);
  });

  const builder = join(root, 'node_modules', '.bin', 'electron-builder');
  const electronBinary = join(root, 'node_modules', 'electron', 'dist', 'electron');
  const canBuild = existsSync(builder) && existsSync(electronBinary) && existsSync(join(root, 'out', 'main', 'index.js'));
  if (!canBuild) console.warn('packaging build skipped: needs node_modules/.bin/electron-builder, the Electron binary and a built out/ (npx electron-vite build)');
  it.skipIf(!canBuild)('packs the app and the packed binary carries the fuses (read back with @electron/fuses)', { timeout: 600_000 }, async () => {
    const tmp = tempDir('caplab-pack-');
    try {
      const r = spawnSync(builder, ['--config', 'electron-builder.config.mjs', '--linux', 'dir', `-c.directories.output=${tmp.dir}`], { cwd: root, encoding: 'utf8' });
      expect(r.status, r.stderr).toBe(0);
      const packed = join(tmp.dir, 'linux-unpacked', 'caplab-app');
      expect(existsSync(packed)).toBe(true);
      expect(existsSync(join(tmp.dir, 'linux-unpacked', 'resources', 'app.asar'))).toBe(true);
      const fusesModule = '@electron/fuses';
      const fuses = (await import(fusesModule)) as { getCurrentFuseWire(path: string): Promise<Record<number, number>>; FuseV1Options: Record<string, number>; FuseState: Record<string, number> };
      const wire = await fuses.getCurrentFuseWire(packed);
      const state = (name: string) => wire[fuses.FuseV1Options[name]!];
      expect(state('RunAsNode')).toBe(fuses.FuseState.DISABLE);
      expect(state('EnableNodeOptionsEnvironmentVariable')).toBe(fuses.FuseState.DISABLE);
      expect(state('EnableNodeCliInspectArguments')).toBe(fuses.FuseState.DISABLE);
      expect(state('EnableEmbeddedAsarIntegrityValidation')).toBe(fuses.FuseState.ENABLE);
      expect(state('OnlyLoadAppFromAsar')).toBe(fuses.FuseState.ENABLE);
    } finally {
      tmp.cleanup();
    }
  });
});
