/**
 * HIL-style `${var}` interpolation of binding-rule bind names (reference/mesh.md §3.4:
 * `lib/template.InterpolateHIL(..., true)`): each `${name}` is replaced by the projected
 * variable of that name, lower-cased; `$${` is a literal `${`. Only plain variable
 * references are supported — the reference's bind names use nothing else.
 *
 * @module
 */
import { AuthnError } from './errors.js';

/** HIL identifiers as bind names use them: `value.sub`, `serviceaccount.name`. */
const IDENT = /^[A-Za-z_][A-Za-z0-9_.\-]*$/;

/**
 * Interpolates `template` with `vars`; values are lower-cased unless `lowerCase` is false.
 *
 * @throws {AuthnError} kind `bind`: `error interpreting template: unknown variable accessed: <name>`,
 *   `… unterminated interpolation` or `… invalid interpolation "<expr>"`.
 */
export function interpolateBindName(template: string, vars: Readonly<Record<string, string>>, lowerCase = true): string {
  const fail = (why: string) => new AuthnError('bind', `error interpreting template: ${why}`);
  let out = '';
  let i = 0;
  while (i < template.length) {
    const start = template.indexOf('${', i);
    if (start < 0) break;
    if (start > 0 && template[start - 1] === '$') {
      // `$${` escapes: keep one `$` and the brace literally
      out += template.slice(i, start - 1) + '${';
      i = start + 2;
      continue;
    }
    const end = template.indexOf('}', start + 2);
    if (end < 0) throw fail('unterminated interpolation');
    const name = template.slice(start + 2, end).trim();
    if (!IDENT.test(name)) throw fail(`invalid interpolation "${template.slice(start, end + 1)}"`);
    if (!Object.hasOwn(vars, name)) throw fail(`unknown variable accessed: ${name}`);
    const value = vars[name];
    out += template.slice(i, start) + (lowerCase ? value.toLowerCase() : value);
    i = end + 1;
  }
  return out + template.slice(i);
}
