import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** What the two planes (s3, control) must not import: what runs them. */
const ABOVE_PLANES = '(server|cluster|cli)/|(runtime|start|main)\\.js$';
/** What the store must not import: the planes and everything above them. */
const ABOVE_STORE = `(s3|control)/|${ABOVE_PLANES}`;

/** Files matching `files` may not import a relative path matching `forbidden` (a regular expression). */
function layer(files, forbidden) {
  return [
    {
      files: [files],
      rules: {
        'no-restricted-imports': [
          'error',
          {
            patterns: [
              { regex: forbidden, message: 'Imports go down the folder order only (README, source layout).' },
            ],
          },
        ],
      },
    },
  ];
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
  // The folder order (README, source layout): protocol < sigv4 < backend, store < s3, control <
  // server, cluster. A folder imports only from folders below it; the CLI only from protocol.
  ...layer('src/protocol/**', '^\\.\\./'),
  ...layer('src/sigv4/**', '^\\.\\./(?!protocol/)'),
  ...layer('src/backend/**', '^\\.\\./(?!(protocol|sigv4|config|observability)/)'),
  ...layer('src/store/**', `^(\\.\\./)+(backend/|${ABOVE_STORE})`),
  ...layer('src/observability/**', `^(\\.\\./)+(backend/|sigv4/|${ABOVE_STORE})`),
  ...layer('src/s3/**', `^(\\.\\./)+(control/|${ABOVE_PLANES})`),
  ...layer('src/control/**', `^(\\.\\./)+(s3/|${ABOVE_PLANES})`),
  ...layer('src/cli/*', '^\\.\\./(?!protocol/)'),
  ...layer('src/cli/*/**', '^\\.\\./\\.\\./(?!protocol/|cli/)'),
  {
    files: ['test/**', 'bench/**', 'scripts/**'],
    rules: { 'no-console': 'off', '@typescript-eslint/no-explicit-any': 'off' },
  },
);
