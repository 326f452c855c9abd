/**
 * The house rules of DESIGN.md, read from import lines: a service never imports another
 * service; services reach the kernel's http, store and config areas only through their
 * index; the SDK imports nothing of the project; only `cairn dev` and the server
 * commands load service code into the CLI.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { it } from 'node:test';

const SRC = resolve(import.meta.dirname, '..', 'src');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') && !p.endsWith('.test.ts') ? [p] : [];
  });
}

/** Every local import of `file`, as a path relative to src/. */
function imports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:from|import)\s*\(?\s*'(\.[^']+)'/g)].map((m) => relative(SRC, resolve(dirname(file), m[1])));
}

const all = files(SRC).map((f) => ({ file: relative(SRC, f), imports: imports(f) }));

it('keeps services apart, the SDK standalone and the kernel behind its entries', () => {
  const problems: string[] = [];
  for (const { file, imports: deps } of all) {
    const service = /^services\/([^/]+)\//.exec(file)?.[1];
    for (const dep of deps) {
      const other = /^services\/([^/]+)\//.exec(dep)?.[1];
      if (service && other && other !== service) problems.push(`${file} imports another service: ${dep}`);
      if (file.startsWith('sdk/') && !dep.startsWith('sdk/')) problems.push(`${file}: the SDK imports ${dep}`);
      if (file.startsWith('services/') && /^kernel\/(http|store|config)\/(?!index\.js$)/.test(dep))
        problems.push(`${file} reaches behind a kernel entry: ${dep}`);
      if (
        file.startsWith('cli/') &&
        dep.startsWith('services/') &&
        !/^cli\/commands\/(dev|secrets-server|gateway-server|mesh-agent|sched-agent|csi-hostpath)\.ts$/.test(file)
      )
        problems.push(`${file}: only the commands that start servers may load service code (${dep})`);
    }
  }
  assert.deepEqual(problems, []);
  assert.ok(all.length > 50, 'the scan found the sources');
});
