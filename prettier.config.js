// Prettier: the one formatting of the tree (`npm run format` writes it, `npm run lint` checks it).
// Long lines (160) match how the code was written: one-line guards and schema-shaped literals.

/** @type {import('prettier').Config} */
export default {
  printWidth: 160,
  singleQuote: true,
  trailingComma: 'all',
};
