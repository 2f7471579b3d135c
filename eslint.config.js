import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

// Type-aware lint: every file is checked with the types of the tsconfig.json of its package.
export default tseslint.config(
  {
    ignores: [
      '**/internal/proto/protos.*',
      '**/dist/**',
      '**/node_modules/**',
      '**/results/**',
      '**/coverage/**',
      '.nx/**',
      'docs/api/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      globals: globals.node,
      parserOptions: {
        // Each file is typed by the nearest tsconfig.json, the one its package's typecheck uses.
        projectService: true,
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      // The locks, the token store and the servers are built on promises: one left unawaited loses
      // its error and its ordering, one passed where a callback is expected is never awaited.
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      // Passing on a caught value (`catch (e)`, a rejection handler's reason) is allowed, as
      // only-throw-error allows rethrowing it; a new rejection must still be an Error.
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingUnknown: true }],
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/packages/*/src/**', '@fastpath/*/src/**', '@fastpath/*/internal/**'],
              message: 'Import a package through its front door.',
            },
          ],
        },
      ],
    },
  },
  {
    // Configuration files, bin launchers and build scripts are plain JavaScript outside every
    // tsconfig: no types to check them with, so they get the syntactic rules only.
    files: ['**/*.js', '**/*.cjs', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    files: ['**/*.cjs'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
