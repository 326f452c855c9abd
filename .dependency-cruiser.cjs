/**
 * dependency-cruiser's settings for the import checks of test/import-circles.test.ts (by
 * hand: `npx depcruise src`): no circle of imports anywhere in src/, type imports counted,
 * and the scheduler's domain code never imports its request layer. Parsed with swc: the
 * project's TypeScript 7 has no JavaScript API for the `tsc` parser.
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
    {
      name: 'sched-domain-no-request-layer',
      severity: 'error',
      comment:
        "The scheduler's domain code (the model, the scheduler, jobs, the client agent, CSI) takes what it needs as arguments (service-deps.ts), never the request context: request.ts and deps.ts are for route handlers.",
      from: {
        path: '^src/services/sched/((scheduler|jobs|client|csi)/|(alloc|node|go-struct|service-deps|state)\\.ts$)',
        // Request-level helpers of the CSI routes: they read the request's headers and caller.
        pathNot: '^src/services/sched/csi/(secrets|volume-register|volume-remove)\\.ts$',
      },
      to: { path: '^src/services/sched/(request|deps)\\.ts$' },
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
