/**
 * Constraint checks against a node (reference/sched-workloads.md "Evaluations and
 * placement"; the reference's `scheduler/feasible.go` `resolveTarget` and `checkConstraint`).
 * Targets: `${attr.<key>}`, `${meta.<key>}`, `${node.unique.id}`, `${node.unique.name}`,
 * `${node.datacenter}`, `${node.class}`, `${node.pool}`, anything else a literal. Operands:
 * `=` `==` `is`, `!=` `not`, `<` `<=` `>` `>=` (numbers when both sides parse as numbers,
 * else string order), `regexp` (RE2, as Go), `set_contains` / `set_contains_all`,
 * `set_contains_any` (comma-separated sets), `version` / `semver` (constraints such as
 * `>= 1.2, < 2.0`), `is_set`, `is_not_set`. `distinct_hosts` is a placement rule, checked by
 * the placer (place.ts); an operand not listed here matches no node.
 *
 * @module
 */
import { RE2JS } from 're2js';
import type { Constraint } from '../jobs/types.js';
import type { NodeDoc } from '../state.js';
import { LRUCache } from 'lru-cache';

/** The value `target` names on node `n`, or undefined when the node has none. */
export function resolveTarget(target: string, n: NodeDoc): string | undefined {
  if (!target.startsWith('${')) return target;
  const inner = target.slice(2, target.endsWith('}') ? -1 : undefined);
  switch (inner) {
    case 'node.unique.id':
      return n.ID;
    case 'node.unique.name':
      return n.Name;
    case 'node.datacenter':
      return n.Datacenter;
    case 'node.class':
      return n.NodeClass;
    case 'node.pool':
      return n.NodePool;
  }
  const own = (m: Readonly<Record<string, string>> | null, key: string) => (m && Object.hasOwn(m, key) ? m[key] : undefined);
  if (inner.startsWith('attr.')) return own(n.Attributes, inner.slice(5));
  if (inner.startsWith('meta.')) return own(n.Meta, inner.slice(5));
  return undefined;
}

/** A constraint as the reference prints it in `ConstraintFiltered` (`${attr.kernel.name} = linux`). */
export const constraintText = (c: Constraint): string => `${c.LTarget} ${c.Operand} ${c.RTarget}`;

/** Does node `n` satisfy `c`? (`distinct_hosts` and `distinct_property` are always true here: see the module doc.) */
export function meetsConstraint(c: Constraint, n: NodeDoc): boolean {
  if (c.Operand === 'distinct_hosts' || c.Operand === 'distinct_property') return true;
  const l = resolveTarget(c.LTarget, n);
  const r = resolveTarget(c.RTarget, n);
  switch (c.Operand) {
    case 'is_set':
      return l !== undefined;
    case 'is_not_set':
      return l === undefined;
  }
  if (l === undefined || r === undefined) return false;
  switch (c.Operand) {
    case '=':
    case '==':
    case 'is':
      return l === r;
    case '!=':
    case 'not':
      return l !== r;
    case '<':
    case '<=':
    case '>':
    case '>=':
      return ordered(c.Operand, compare(l, r));
    case 'regexp':
      return regexpMatch(l, r);
    case 'set_contains':
    case 'set_contains_all': {
      const have = new Set(splitSet(l));
      return splitSet(r).every((x) => have.has(x));
    }
    case 'set_contains_any': {
      const have = new Set(splitSet(l));
      return splitSet(r).some((x) => have.has(x));
    }
    case 'version':
    case 'semver':
      return versionMatches(l, r);
    default:
      return false;
  }
}

const splitSet = (s: string): string[] =>
  s
    .split(',')
    .map((x) => x.trim())
    .filter((x) => x !== '');

/** Numbers when both parse (the reference tries int, then float), else string order; -1, 0 or 1. */
function compare(l: string, r: string): number {
  const ln = Number(l);
  const rn = Number(r);
  if (l.trim() !== '' && r.trim() !== '' && Number.isFinite(ln) && Number.isFinite(rn)) return Math.sign(ln - rn);
  return l < r ? -1 : l > r ? 1 : 0;
}

function ordered(op: string, cmp: number): boolean {
  return op === '<' ? cmp < 0 : op === '<=' ? cmp <= 0 : op === '>' ? cmp > 0 : cmp >= 0;
}

/** Compiled patterns (`false`: invalid), the 1000 most recently used. */
const regexps = new LRUCache<string, RE2JS | false>({ max: 1000 });

/** RE2 search of `pattern` in `value` (compiled once per pattern; an invalid pattern matches nothing). */
function regexpMatch(value: string, pattern: string): boolean {
  let re = regexps.get(pattern);
  if (re === undefined) {
    try {
      re = RE2JS.compile(pattern);
    } catch {
      re = false;
    }
    regexps.set(pattern, re);
  }
  return re !== false && re.test(value);
}

/** A parsed version: numeric segments and a pre-release (empty: a release). */
interface Version {
  readonly parts: readonly number[];
  readonly pre: string;
}

const VERSION = /^v?(\d+(?:\.\d+)*)(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$/;

function parseVersion(s: string): Version | undefined {
  const m = VERSION.exec(s.trim());
  return m ? { parts: m[1]!.split('.').map(Number), pre: m[2] ?? '' } : undefined;
}

/** Version order as hashicorp/go-version: segments numerically (missing ones 0), then a pre-release before its release. */
function compareVersions(a: Version, b: Version): number {
  for (let i = 0; i < Math.max(a.parts.length, b.parts.length, 3); i++) {
    const d = (a.parts[i] ?? 0) - (b.parts[i] ?? 0);
    if (d !== 0) return Math.sign(d);
  }
  if (a.pre === b.pre) return 0;
  if (a.pre === '') return 1;
  if (b.pre === '') return -1;
  return a.pre < b.pre ? -1 : 1;
}

/** Does version `value` meet every comma-separated constraint of `spec` (`=`, `!=`, `>`, `<`, `>=`, `<=`, `~>`)? An unparsable side matches nothing. */
export function versionMatches(value: string, spec: string): boolean {
  const v = parseVersion(value);
  if (!v) return false;
  return spec.split(',').every((part) => {
    const m = /^\s*(>=|<=|!=|~>|=|>|<)?\s*(\S+)\s*$/.exec(part);
    const want = m && parseVersion(m[2]!);
    if (!m || !want) return false;
    const cmp = compareVersions(v, want);
    switch (m[1] ?? '=') {
      case '=':
        return cmp === 0;
      case '!=':
        return cmp !== 0;
      case '>':
        return cmp > 0;
      case '<':
        return cmp < 0;
      case '>=':
        return cmp >= 0;
      case '<=':
        return cmp <= 0;
      default: {
        // `~> 1.2.3`: >= 1.2.3 and below 1.3; `~> 1.2`: below 2.0.
        const n = want.parts.length;
        const upper = want.parts.slice(0, Math.max(1, n - 1));
        upper[upper.length - 1]! += 1;
        return cmp >= 0 && compareVersions(v, { parts: upper, pre: '' }) < 0;
      }
    }
  });
}
