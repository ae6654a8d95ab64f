// Layer rules (DESIGN.md): renderer -> shared; main -> core -> shared; only src/main/electron imports electron.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const nodeBuiltins = ['node:*', 'fs', 'path', 'os', 'child_process', 'crypto', 'http', 'net', 'worker_threads', 'url', 'events', 'stream', 'util'];
const restrict = (groups, message) => ({ group: groups, message });

export default tseslint.config(
  { ignores: ['out/**', 'dist/**', 'node_modules/**', 'resources/**', 'test-results/**', 'playwright-report/**', 'bench/results/**', '.device/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.tsx'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-imports': ['error', { patterns: [restrict(['electron'], 'Only src/main/electron/ may import electron.')] }],
    },
  },
  {
    files: ['src/shared/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [
        restrict(['electron'], 'Only src/main/electron/ may import electron.'),
        restrict([...nodeBuiltins, 'better-sqlite3', 'node-pty', 'koffi', 'react', 'react-dom'], 'src/shared is pure: no Node, DOM or UI imports.'),
        restrict(['**/core/**', '**/main/**', '**/renderer/**', '**/preload/**'], 'src/shared depends on nothing else in src.'),
      ] }],
    },
  },
  {
    files: ['src/core/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [
        restrict(['electron'], 'Only src/main/electron/ may import electron.'),
        restrict([...nodeBuiltins, 'better-sqlite3', 'node-pty', 'koffi', 'react', 'react-dom'], 'src/core is pure computation: no Node, DOM or UI imports.'),
        restrict(['**/main/**', '**/renderer/**', '**/preload/**'], 'src/core may import only src/shared.'),
      ] }],
    },
  },
  {
    files: ['src/renderer/**/*.ts', 'src/renderer/**/*.tsx'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [
        restrict(['electron'], 'Only src/main/electron/ may import electron.'),
        restrict([...nodeBuiltins, 'better-sqlite3', 'node-pty', 'koffi'], 'The renderer runs in a browser sandbox: no Node imports.'),
        restrict(['**/main/**', '**/preload/**'], 'The renderer talks to the engine only through the contract in src/shared.'),
      ] }],
    },
  },
  {
    files: ['src/main/lab/**/*.ts', 'src/main/cli/**/*.ts', 'src/main/host/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [
        restrict(['electron'], 'The engine never imports electron; only src/main/electron/ does.'),
        restrict(['**/renderer/**', '**/preload/**'], 'The engine does not depend on the UI.'),
      ] }],
    },
  },
  {
    files: ['src/main/electron/**/*.ts', 'src/preload/**/*.ts'],
    rules: { 'no-restricted-imports': 'off' },
  },
);
