/**
 * Write-time selector check for binding rules (reference/mesh.md §6.6: the reference
 * compiles a rule's selector against the auth method's blank identity, so unknown field
 * names are refused when the rule is written rather than silently never matching).
 * @module
 */
import type { Node, Selector } from './ast.js';
import { FilterError } from './errors.js';
import { selectorText } from './evaluate.js';

/**
 * Throws unless every selector of `root` walks through `sample`. A plain JSON sample has
 * no types, so its shape stands in for them: a non-empty object is a struct (its keys are
 * the only fields), an empty object is a map (any key; its values are unknown until
 * login), a list accepts an index, and `null` (a nil map, slice or pointer) ends the walk.
 * Pass the blank identity with map-valued fields empty, e.g. `{ value: {}, list: {} }`.
 * Names bound by `all`/`any` are not fields and are skipped.
 */
export function checkTree(root: Node, sample: unknown, bound: readonly string[] = []): void {
  switch (root.type) {
    case 'and':
    case 'or':
      checkTree(root.left, sample, bound);
      checkTree(root.right, sample, bound);
      return;
    case 'not':
      checkTree(root.operand, sample, bound);
      return;
    case 'match':
      checkPath(root.selector, sample, bound);
      return;
    case 'collection': {
      checkPath(root.selector, sample, bound);
      const names = [root.name, root.index, root.value].filter((n): n is string => n !== undefined);
      checkTree(root.inner, sample, [...bound, ...names]);
      return;
    }
    default:
      return root satisfies never;
  }
}

function checkPath(selector: Selector, sample: unknown, bound: readonly string[]): void {
  const path = selector.path;
  if (path.length > 0 && bound.includes(path[0])) return;
  let cur = sample;
  for (let i = 0; i < path.length; i++) {
    const part = path[i];
    const fail = (why: string) => new FilterError('evaluation', `Selector ${JSON.stringify(selectorText(selector))} is not valid: ${why}`);
    if (cur === null || cur === undefined) return;
    if (Array.isArray(cur)) {
      if (!/^[0-9]+$/.test(part)) throw fail(`${JSON.stringify(part)} is not an index of a list`);
      if (cur.length === 0) return;
      cur = cur[0];
    } else if (typeof cur === 'object') {
      if (Object.hasOwn(cur, part)) cur = (cur as Record<string, unknown>)[part];
      else if (i > 0 && Object.keys(cur).length === 0) return;
      else throw fail(`unknown field ${JSON.stringify(part)}`);
    } else {
      throw fail(`${JSON.stringify(path[i - 1])} has no field ${JSON.stringify(part)}`);
    }
  }
}
