// Layer rules (docs/architecture.md): renderer -> shared (+ core/decimate); cli -> host -> lab -> core -> shared;
// electron -> host, lab; only src/main/electron imports electron. SQL only in src/main/lab/store (better-sqlite3 and
// the connection's prepare/exec/pragma/transaction): everything else calls store functions.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

const nodeModules = ['fs', 'path', 'os', 'child_process', 'crypto', 'http', 'https', 'net', 'worker_threads', 'url', 'events', 'stream', 'util', 'better-sqlite3', 'node-pty', 'koffi', 'ws'];
const noElectron = { name: 'electron', message: 'Only src/main/electron/ may import electron.' };
const banned = (names, message) => names.map((name) => ({ name, message }));
// src/shared, src/core and the renderer already ban it with the rest of nodeModules.
const noSqlite = { name: 'better-sqlite3', message: 'Only src/main/lab/store/ opens SQLite: call a store function instead.' };

const sqlMessage = 'SQL lives in src/main/lab/store/: move this query or transaction into a store function and call that.';
/**
 * The connection's SQL entry points. exec is matched on the receiver's name (db, this.db, ctx.db, fooDb): without type
 * information a syntax rule cannot tell a database from a RegExp, whose exec is everywhere.
 */
const sqlOutsideStore = [
  { selector: "CallExpression[callee.type='MemberExpression'][callee.property.name=/^(prepare|pragma|transaction)$/]", message: sqlMessage },
  { selector: "CallExpression[callee.property.name='exec'][callee.object.name=/^(db|database|\\w+Db)$/]", message: sqlMessage },
  { selector: "CallExpression[callee.property.name='exec'][callee.object.property.name=/^(db|database|\\w+Db)$/]", message: sqlMessage },
];

/** no-restricted-imports for one layer: exact module names plus path patterns. */
const layer = (paths, patterns) => ['error', { paths: [noElectron, ...paths], patterns }];

const labPatterns = [
  { group: ['**/host/**', '**/cli/**'], message: 'src/main/lab is the engine: it imports neither the browser host nor the CLI (they import it).' },
  { group: ['**/renderer/**', '**/preload/**', '**/electron/**'], message: 'The engine does not depend on the UI or the Electron shell.' },
];

/**
 * Faces (CLI, browser host, Electron shell) reach the engine through its door only: src/main/lab/index.ts (the engine,
 * its services' request types), src/main/lab/basics.ts (what a face needs before it opens one) and, for the commands
 * that must not open an engine (they only read, or they are the simulated workload), one door each in
 * src/main/lab/standalone/; plus src/shared.
 */
const faceDoor = { group: ['**/lab/**', '!**/lab/basics', '!**/lab/standalone', '!**/lab/standalone/*'], message: 'A face imports the engine through its door (src/main/lab/index.ts, lab/basics.ts, or for an engine-free command lab/standalone/) and src/shared, nothing else under src/main/lab/.' };
const cliPatterns = [{ group: ['**/renderer/**', '**/preload/**', '**/electron/**'], message: 'The CLI does not depend on the UI or the Electron shell.' }];

export default tseslint.config(
  { ignores: ['out/**', 'dist/**', 'node_modules/**', 'resources/**', 'test-results/**', 'playwright-report/**', 'bench/results/**', '.device/**', '.device-*/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.mjs', '**/*.js', '**/*.cjs'],
    languageOptions: { globals: { ...globals.node } },
  },
  {
    files: ['**/*.ts', '**/*.tsx'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      // Sanitising terminal output needs control characters in patterns.
      'no-control-regex': 'off',
      'no-restricted-imports': layer([], []),
    },
  },
  {
    files: ['src/shared/**/*.ts'],
    rules: {
      'no-restricted-imports': layer(banned([...nodeModules, 'react', 'react-dom'], 'src/shared is pure: no Node, DOM or UI imports.'), [
        { group: ['node:*'], message: 'src/shared is pure: no Node imports.' },
        { group: ['**/core/**', '**/main/**', '**/renderer/**', '**/preload/**'], message: 'src/shared depends on nothing else in src.' },
      ]),
    },
  },
  {
    files: ['src/core/**/*.ts'],
    rules: {
      'no-restricted-imports': layer(banned([...nodeModules, 'react', 'react-dom'], 'src/core is pure computation: no Node, DOM or UI imports.'), [
        { group: ['node:*'], message: 'src/core is pure computation: no Node imports.' },
        { group: ['**/main/**', '**/renderer/**', '**/preload/**'], message: 'src/core may import only src/shared.' },
      ]),
    },
  },
  {
    // The renderer imports src/shared, and from src/core only the plot decimation (the same min/max decimation the
    // store uses for stored traces, applied to live samples in the browser).
    files: ['src/renderer/**/*.ts', 'src/renderer/**/*.tsx'],
    rules: {
      'no-restricted-imports': layer(banned(nodeModules, 'The renderer runs in a browser sandbox: no Node imports.'), [
        { group: ['node:*'], message: 'The renderer runs in a browser sandbox: no Node imports.' },
        { group: ['**/main/**', '**/preload/**'], message: 'The renderer talks to the engine only through the contract in src/shared.' },
        { group: ['**/core/**', '!**/core/decimate'], message: 'The renderer may use src/core/decimate only; analysis results come from the engine.' },
      ]),
    },
  },
  {
    // The engine: imports shared and core; never its faces (host, CLI, Electron) or the UI.
    files: ['src/main/lab/**/*.ts'],
    rules: { 'no-restricted-imports': layer([noSqlite], labPatterns) },
  },
  {
    files: ['src/main/lab/store/**/*.ts'],
    rules: { 'no-restricted-imports': layer([], labPatterns) },
  },
  {
    // The browser host and IPC transport: the engine through its contract; never the CLI (the CLI's serve imports it).
    files: ['src/main/host/**/*.ts'],
    rules: {
      'no-restricted-imports': layer([noSqlite], [
        { group: ['**/cli/**'], message: 'src/main/host does not import the CLI: `caplab serve` (src/main/cli) imports the host.' },
        { group: ['**/renderer/**', '**/preload/**', '**/electron/**'], message: 'The host does not depend on the UI or the Electron shell.' },
        faceDoor,
      ]),
    },
  },
  {
    files: ['src/main/cli/**/*.ts'],
    rules: { 'no-restricted-imports': layer([noSqlite], [...cliPatterns, faceDoor]) },
  },
  {
    files: ['src/main/electron/**/*.ts', 'src/preload/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: [noSqlite], patterns: [faceDoor] }] },
  },
  {
    files: ['src/**/*.ts', 'src/**/*.tsx'],
    ignores: ['src/main/lab/store/**'],
    rules: { 'no-restricted-syntax': ['error', ...sqlOutsideStore] },
  },
);
