/**
 * typescript-eslint, resolved from this folder so that its `import 'typescript'` finds the
 * TypeScript 6 installed beside it rather than the project's TypeScript 7 (eslint.config.js).
 */
export { default } from 'typescript-eslint';
