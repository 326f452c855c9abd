/**
 * dependency-cruiser's settings for the import-circle check (test/import-circles.test.ts;
 * by hand: `npx depcruise src`): no circle of imports anywhere in src/, type imports counted.
 * Parsed with swc: the project's TypeScript 7 has no JavaScript API for the `tsc` parser.
 */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'An import circle ties its files together: cut it by handing the dependency in, or by moving what both need to a module of its own.',
      from: { path: '^src/' },
      to: { circular: true },
    },
  ],
  options: {
    parser: 'swc',
    // Keep the imports that vanish when TypeScript compiles: `import type` and its kin.
    tsPreCompilationDeps: true,
    // Test files: nothing imports them, so they close no circle.
    exclude: { path: '\\.test\\.ts$' },
    doNotFollow: { path: 'node_modules' },
  },
};
