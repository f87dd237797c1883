// Layers are enforced, not described: a wrong import is a failing check.
import js from '@eslint/js';
import importX from 'eslint-plugin-import-x';
import svelte from 'eslint-plugin-svelte';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const nodeBuiltins = ['node:*', 'fs', 'path', 'os', 'child_process', 'crypto', 'http', 'net', 'url', 'util', 'events', 'stream'];

export default tseslint.config(
  { ignores: ['.dependency-cruiser.cjs', 'out/**', 'dist/**', 'node_modules/**', 'bench/node_modules/**', '.node/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  ...svelte.configs['flat/recommended'],
  {
    languageOptions: { globals: { ...globals.node }, parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname, extraFileExtensions: ['.svelte'] } },
    plugins: { 'import-x': importX },
    settings: { 'import-x/resolver': { node: { extensions: ['.ts', '.js', '.svelte'] } }, 'import-x/extensions': ['.ts', '.js'], 'import-x/parsers': { '@typescript-eslint/parser': ['.ts', '.js'] } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' }],
      'import-x/no-cycle': ['error', { maxDepth: 8, ignoreExternal: true }],
    },
  },
  {
    files: ['**/*.js', '**/*.mjs', 'bin/**'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    files: ['src/main/core/**/*.ts', 'src/cli/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { paths: [{ name: 'electron', message: 'src/main/core and the CLI are plain Node: never import electron (only src/main/app may).' }] }],
    },
  },
  {
    files: ['src/shared/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { paths: ['electron'], patterns: [{ group: nodeBuiltins, message: 'src/shared is pure TypeScript: no node builtins.' }, { group: ['**/main/**', '**/renderer/**'], message: 'src/shared depends on nothing.' }] }],
    },
  },
  {
    files: ['src/renderer/**/*.ts', 'src/renderer/**/*.svelte', 'src/renderer/**/*.svelte.ts'],
    languageOptions: { globals: { ...globals.browser }, parserOptions: { parser: tseslint.parser } },
    rules: {
      'no-restricted-imports': ['error', { paths: ['electron'], patterns: [{ group: nodeBuiltins, message: 'The renderer runs in a sandbox: no node.' }, { group: ['**/main/**', '**/preload/**'], message: 'The renderer talks to main through the API/IPC contract in src/shared only.' }] }],
    },
  },
  {
    files: ['src/preload/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['**/main/**', '**/renderer/**'], message: 'The preload is transport only.' }] }],
    },
  },
);
