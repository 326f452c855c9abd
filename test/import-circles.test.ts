/**
 * No import circle anywhere in src/ (issue 25 scope 2): not inside a service, the kernel,
 * the CLI or the SDK, type imports counted (`import type`, `export type … from`): a circle
 * of types still ties the files' meaning together and is one step from a circle of values.
 * And the scheduler's domain code never imports its request layer (request.ts, deps.ts).
 *
 * The graph is dependency-cruiser's, with the settings of `.dependency-cruiser.cjs` (swc
 * parses: the project's TypeScript 7 has no JavaScript API for its `tsc` parser). It runs as
 * its own process: under tsx's loader, dependency-cruiser cannot load swc's visitor. A circle
 * is reported once, as the files around it from its first file in path order, e.g.
 * `services/sched/alloc.ts → services/sched/request.ts → services/sched/deps.ts → …`.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { before, it } from 'node:test';
import { REPO_ROOT as ROOT } from './repo-root.js';

const DEPCRUISE = join(ROOT, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');

/** The parts of dependency-cruiser's JSON output read here. */
interface Cruise {
  readonly modules: readonly { readonly source: string; readonly dependencies: readonly { readonly resolved: string }[] }[];
  readonly summary: {
    readonly violations: readonly {
      readonly from: string;
      readonly to: string;
      readonly rule: { readonly name: string };
      readonly cycle?: readonly { readonly name: string }[];
    }[];
  };
}

/** The cruise of src/. It exits with the number of violations: its JSON is read either way. */
function cruise(): Cruise {
  const r = spawnSync(process.execPath, [DEPCRUISE, 'src', '--config', '.dependency-cruiser.cjs', '--output-type', 'json'], {
    cwd: ROOT,
    encoding: 'utf8',
    maxBuffer: 64 << 20,
  });
  if (r.error) throw r.error;
  try {
    return JSON.parse(r.stdout) as Cruise;
  } catch {
    throw new Error(`dependency-cruiser gave no JSON (exit ${r.status}): ${r.stderr}`);
  }
}

/** Each circle once: its files from the first in path order, `src/` left off. */
function circles(violations: Cruise['summary']['violations']): string[] {
  const found = new Set<string>();
  for (const v of violations) {
    if (v.rule.name !== 'no-circular' || !v.cycle) continue;
    // `cycle` goes from the violation's target round to its source.
    const files = [v.from, ...v.cycle.slice(0, -1).map((c) => c.name)].map((f) => f.replace(/^src\//, ''));
    const first = files.indexOf([...files].sort()[0]!);
    const turned = [...files.slice(first), ...files.slice(0, first)];
    found.add([...turned, turned[0]].join(' → '));
  }
  return [...found].sort();
}

let out: Cruise;
before(() => {
  out = cruise();
});

it('has no import circle in src/, type imports counted', () => {
  assert.ok(out.modules.length > 500, `the cruise found the sources (${out.modules.length} modules)`);
  // A type-only import (types.ts: `import type { SecretsCore } from './core.js'`) is in the graph.
  const types = out.modules.find((m) => m.source === 'src/services/secrets/types.ts');
  assert.ok(
    types?.dependencies.some((d) => d.resolved === 'src/services/secrets/core.ts'),
    'type imports are counted',
  );
  assert.deepEqual(
    circles(out.summary.violations),
    [],
    'import circles: cut each by handing the dependency in, or by moving what both need to a module of its own',
  );
});

it("keeps the scheduler's domain code off its request layer", () => {
  const imports = out.summary.violations.filter((v) => v.rule.name === 'sched-domain-no-request-layer').map((v) => `${v.from} → ${v.to}`);
  assert.deepEqual(imports, [], 'domain modules importing request.ts or deps.ts: take the dependency as an argument (service-deps.ts) instead');
});
