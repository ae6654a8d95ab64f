// Packaging of the desktop app (`npm run dist`): Linux AppImage and deb, built from electron-vite's `out/`.
// Electron's fuses are flipped by electron-builder's own integration of @electron/fuses (`electronFuses`), after
// packing and before signing: the shipped binary cannot be turned into a plain Node (ELECTRON_RUN_AS_NODE), be
// debugged through --inspect or NODE_OPTIONS, or load its code from anywhere but its app.asar.
// test/unit/packaging.test.ts checks this file (targets, fuses, what goes where) without electron-builder installed.

/** The fuses, named as electron-builder's FuseOptionsV1 names them. */
export const electronFuses = {
  runAsNode: false,
  enableNodeOptionsEnvironmentVariable: false,
  enableNodeCliInspectArguments: false,
  // Checked on macOS and Windows only (Electron's support); on Linux the asar is covered by the package's checksum.
  enableEmbeddedAsarIntegrityValidation: true,
  onlyLoadAppFromAsar: true,
  enableCookieEncryption: true,
  loadBrowserProcessSpecificV8Snapshot: false,
  // The renderer is loaded from file:// as ES modules, which need the file protocol's privileges in Electron.
  grantFileProtocolExtraPrivileges: true,
};

/** @type {import('electron-builder').Configuration} */
const config = {
  appId: 'org.caplab.app',
  productName: 'CapLab',
  directories: { output: 'dist' },
  files: ['out/**/*', 'package.json', '!**/*.map'],
  asar: true,
  // Native addons and node-pty's spawn helper are loaded by the OS, which cannot read inside an asar.
  asarUnpack: ['**/*.node', 'node_modules/node-pty/**', 'node_modules/koffi/**', 'node_modules/better-sqlite3/**'],
  // Workload definitions and their Python scripts are run by python3 and containers: real files beside the asar
  // (<install>/resources/resources, found by resourcesDir() upward from the bundle).
  extraResources: [{ from: 'resources', to: 'resources', filter: ['**/*'] }],
  electronFuses,
  linux: {
    target: ['AppImage', 'deb'],
    category: 'Science',
    executableName: 'caplab-app',
    synopsis: 'GPU power-cap lab',
  },
};

export default config;
