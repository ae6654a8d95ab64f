// Layer rules (DESIGN.md): renderer -> shared; main -> core -> shared; only src/main/electron imports electron.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

const nodeModules = ['fs', 'path', 'os', 'child_process', 'crypto', 'http', 'https', 'net', 'worker_threads', 'url', 'events', 'stream', 'util', 'better-sqlite3', 'node-pty', 'koffi', 'ws'];
const noElectron = { name: 'electron', message: 'Only src/main/electron/ may import electron.' };
const banned = (names, message) => names.map((name) => ({ name, message }));

/** no-restricted-imports for one layer: exact module names plus path patterns. */
const layer = (paths, patterns) => ['error', { paths: [noElectron, ...paths], patterns }];

export default tseslint.config(
  { ignores: ['out/**', 'dist/**', 'node_modules/**', 'resources/**', 'test-results/**', 'playwright-report/**', 'bench/results/**', '.device/**'] },
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
    files: ['src/renderer/**/*.ts', 'src/renderer/**/*.tsx'],
    rules: {
      'no-restricted-imports': layer(banned(nodeModules, 'The renderer runs in a browser sandbox: no Node imports.'), [
        { group: ['node:*'], message: 'The renderer runs in a browser sandbox: no Node imports.' },
        { group: ['**/main/**', '**/preload/**'], message: 'The renderer talks to the engine only through the contract in src/shared.' },
      ]),
    },
  },
  {
    files: ['src/main/lab/**/*.ts', 'src/main/cli/**/*.ts', 'src/main/host/**/*.ts'],
    rules: {
      'no-restricted-imports': layer([], [
        { group: ['**/renderer/**', '**/preload/**', '**/electron/**'], message: 'The engine does not depend on the UI or the Electron shell.' },
      ]),
    },
  },
  {
    files: ['src/main/electron/**/*.ts', 'src/preload/**/*.ts'],
    rules: { 'no-restricted-imports': 'off' },
  },
);
