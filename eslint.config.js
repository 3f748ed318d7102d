import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * The folder order (README, source layout). Each folder of src/ lists the folders below it that it
 * may import; anything else that lies outside it (a higher folder, a file at the top of src/ such
 * as runtime.ts, a path leaving src/) is refused.
 */
const FOLDER_ORDER = {
  protocol: [],
  sigv4: ['protocol'],
  access: ['protocol'],
  security: ['protocol'],
  config: ['protocol'],
  store: ['protocol', 'access', 'security', 'config'],
  observability: ['protocol', 'config', 'store'],
  backend: ['protocol', 'sigv4', 'config', 'observability'],
  s3: ['protocol', 'sigv4', 'access', 'security', 'config', 'store', 'observability', 'backend'],
  control: ['protocol', 'sigv4', 'access', 'security', 'config', 'store', 'observability', 'backend'],
  server: ['protocol', 'config', 'store', 'observability', 'backend', 's3', 'control'],
  cluster: ['protocol', 'config', 'store', 'observability', 'backend', 'server'],
  cli: ['protocol'],
};

/** Deepest nesting of a source file below its top folder (src/s3/steps/x.ts is 2). */
const MAX_DEPTH = 3;

/**
 * One rule per depth, since how many `../` reach the top of src/ depends on where a file sits: a
 * relative import that climbs that far must name one of `allowed` (or the folder itself).
 */
function folderLayer(folder, allowed) {
  const names = [folder, ...allowed].join('|');
  return Array.from({ length: MAX_DEPTH }, (_, index) => ({
    files: [`src/${folder}/${'*/'.repeat(index)}*.{ts,js,cjs}`],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: `^(\\.\\./){${index + 1}}(?!(${names})/)`,
              message: 'Imports go down the folder order only (README, source layout).',
            },
          ],
        },
      ],
    },
  }));
}

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      '.bench-dist/**',
      '.test-dist*/**',
      'data/**',
      'node_modules/**',
      'src/control/generated/**',
      'src/cli/generated/**',
      'coverage/**',
      'scratch/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': 'error',
    },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: { require: 'readonly', module: 'writable', process: 'readonly', Buffer: 'readonly' },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  ...Object.entries(FOLDER_ORDER).flatMap(([folder, allowed]) => folderLayer(folder, allowed)),
  {
    files: ['test/**', 'bench/**', 'scripts/**'],
    rules: { 'no-console': 'off', '@typescript-eslint/no-explicit-any': 'off' },
  },
);
