// ESLint (flat config): typescript-eslint's recommended rules over every file we compile, plus the
// example receivers. Formatting is Prettier's job (prettier.config.js); this file keeps the rules
// the code meets, and says below why each exception is one.

import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'data/', 'test-artifacts/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: globals.node },
    rules: {
      // Rows from Knex and bodies from fakes are untyped by nature; `any` there is deliberate.
      '@typescript-eslint/no-explicit-any': 'off',
      // A leading underscore marks what is left out on purpose (`const { secret: _s, ...rest } = row`).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
    },
  },
  {
    // Every setting is read in one place (src/config.ts), so each has its default, its check and its
    // row in the README's table; the service's code takes settings from the Config it is given.
    files: ['src/**/*.ts'],
    ignores: ['src/config.ts'],
    rules: {
      'no-restricted-properties': [
        'error',
        { object: 'process', property: 'env', message: 'Read settings in src/config.ts and pass them through Config (or a function of config.ts).' },
      ],
    },
  },
  {
    // chai's property assertions (`expect(x).to.be.true`) are expressions by design.
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-unused-expressions': 'off' },
  },
);
