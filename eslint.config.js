/**
 * ESLint for the whole tree (src, test, ui, bench, scripts): `npm run lint`.
 *
 * Why typescript-eslint comes from `tools/lint`: the project builds and type-checks with
 * TypeScript 7 (DESIGN.md), whose npm package has no classic compiler API, and
 * typescript-eslint parses with that API (peer `typescript` >=4.8.4 <6.1.0). A package's
 * peer must sit beside it, and a root dependency's beside the root's `typescript@7`, so
 * npm cannot nest TypeScript 6 under a root typescript-eslint (overrides only warn). The
 * workspace `tools/lint` depends on typescript-eslint and `typescript@6.0.3`; npm installs
 * both under `tools/lint/node_modules`, where typescript-eslint's `import 'typescript'`
 * finds 6.0.3, while `npx tsc` at the root stays 7. `ts-api-utils` (loaded by the plugin)
 * would be hoisted to the root, its peer range `>=4.8.4` being met by TypeScript 7: the
 * workspace lists it and the root `overrides` pins its `typescript` to 6.0.3, which keeps
 * it nested too. No rule here needs type information, so linting starts no type checker.
 *
 * Boundaries mirror test/architecture.test.ts: a service never imports another service,
 * services reach the kernel's http, store and config areas only through their index, the
 * SDK imports nothing of the project, and only the commands that start servers load
 * service code into the CLI.
 */
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from '@cairn/lint';

const SERVICES = ['gateway', 'mesh', 'sched', 'secrets'];
const SERVER_COMMANDS = ['dev', 'secrets-server', 'gateway-server', 'mesh-agent', 'sched-agent', 'csi-hostpath'];
/** Deepest folder nesting below a service, the SDK or the CLI that the rules cover. */
const MAX_DEPTH = 8;

/** `files` globs of the sources exactly `depth` folders below `dir`. */
const atDepth = (dir, depth) => [`${dir}/${'*/'.repeat(depth)}*.{ts,tsx,js}`];
/** A regex source for an import specifier that climbs exactly `levels` folders. */
const up = (levels) => `^(\\.\\./){${levels}}`;

/** Per service and depth: no other service, no kernel http/store/config file but its index. */
const serviceBoundaries = SERVICES.flatMap((service) =>
  Array.from({ length: MAX_DEPTH }, (_, depth) => ({
    files: atDepth(`src/services/${service}`, depth),
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: `${up(depth + 1)}(?!${service}/)(${SERVICES.join('|')})/`,
              message: 'A service never imports another service; what they share lives in the kernel (DESIGN.md).',
            },
            {
              regex: `${up(depth + 2)}kernel/(http|store|config)/(?!index\\.js$)`,
              message: "Services reach the kernel's http, store and config areas only through their index.js.",
            },
          ],
        },
      ],
    },
  })),
);

/** The SDK is a public library: nothing outside src/sdk. */
const sdkBoundary = Array.from({ length: MAX_DEPTH }, (_, depth) => ({
  files: atDepth('src/sdk', depth),
  ignores: ['**/*.test.ts'],
  rules: {
    'no-restricted-imports': ['error', { patterns: [{ regex: up(depth + 1), message: 'The SDK imports nothing of the project outside src/sdk.' }] }],
  },
}));

/** Only the commands that start servers load service code into the CLI. */
const cliBoundary = Array.from({ length: MAX_DEPTH }, (_, depth) => ({
  files: atDepth('src/cli', depth),
  ignores: ['**/*.test.ts', ...SERVER_COMMANDS.map((c) => `src/cli/commands/${c}.ts`)],
  rules: {
    'no-restricted-imports': [
      'error',
      {
        patterns: [
          {
            regex: `${up(depth + 1)}services/`,
            message: 'Only the commands that start servers (dev, *-server, *-agent, csi-hostpath) load service code.',
          },
        ],
      },
    ],
  },
}));

export default tseslint.config(
  {
    ignores: ['**/dist/**', '**/node_modules/**', 'ui/dist/**', '.cairn/**', '.test-build/**', 'src/kernel/bexpr/parser.generated.ts'],
  },
  {
    files: ['**/*.{ts,tsx,js,mjs,cjs}'],
    languageOptions: {
      parser: tseslint.parser,
      ecmaVersion: 2022,
      sourceType: 'module',
      globals: { ...globals.node },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    plugins: { '@typescript-eslint': tseslint.plugin },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      // STYLE.md: more than three parameters become an options object; the issue sets
      // the line at four.
      'max-params': ['error', 4],
    },
  },
  {
    files: ['src/**/*.{ts,js}'],
    ignores: ['src/cli/**', '**/*.test.ts', '**/testdata/**'],
    rules: { 'no-console': 'error' },
  },
  {
    files: ['ui/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    plugins: { 'react-hooks': reactHooks },
    rules: {
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'error',
    },
  },
  ...serviceBoundaries,
  ...sdkBoundary,
  ...cliBoundary,
);
