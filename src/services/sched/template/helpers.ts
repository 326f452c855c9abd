/**
 * The common helper functions of job templates, as consul-template defines them
 * (reference/integration.md §3; argument order made for pipelines: `{{ .Tags | join "," }}`):
 *
 * | function | Go behaviour restated |
 * | --- | --- |
 * | `toJSON v`, `toJSONPretty v` | `json.Marshal` / `MarshalIndent(v, "", "  ")`: map keys sorted, `<>&` escaped as `\u003c…`; nil → `""` |
 * | `parseJSON s` | `json.Unmarshal` into `interface{}`; `""` → an empty map |
 * | `toLower s`, `toUpper s`, `toTitle s`, `trimSpace s` | `strings.ToLower`, `ToUpper`, `Title`, `TrimSpace` |
 * | `split sep s` | `strings.Split` of `s` trimmed; `""` → an empty list |
 * | `join sep list` | `strings.Join` |
 * | `replaceAll old new s` | `strings.ReplaceAll` |
 * | `contains v list-or-string` | membership in a list, or a substring |
 * | `base64Encode s`, `base64Decode s` | standard encoding with padding; a bad input is an error |
 * | `timestamp`, `timestamp "unix"`, `timestamp "<Go layout>"` | now in UTC: RFC 3339, Unix seconds, or the layout (go-time.ts) |
 * | `env "NAME"` | the task's environment; `""` when unset |
 *
 * @module
 */
import { templateFunc, isMap, type FuncMap, type Value } from '../../../kernel/template/index.js';
import { formatGoTime } from './go-time.js';

const typeOf = (v: Value): string => (v === null ? 'nil' : Array.isArray(v) ? 'slice' : isMap(v) ? 'map' : typeof v);

function str(fn: string, v: Value): string {
  if (typeof v !== 'string') throw new Error(`${fn}: expected a string, got ${typeOf(v)}`);
  return v;
}

/** Go's `json.Marshal` key order (maps sorted) and HTML escaping. */
function goJson(v: Value, indent?: string): string {
  const sortKeys = (x: unknown): unknown => {
    if (Array.isArray(x)) return x.map(sortKeys);
    if (x instanceof Map) x = Object.fromEntries(x);
    if (isMap(x))
      return Object.fromEntries(
        Object.keys(x)
          .sort()
          .map((k) => [k, sortKeys((x as Record<string, unknown>)[k])]),
      );
    if (typeof x === 'object' && x !== null) return Object.fromEntries(Object.entries(x).map(([k, y]) => [k, sortKeys(y)]));
    if (typeof x === 'function') throw new Error('json: unsupported type: func');
    if (typeof x === 'number' && !Number.isFinite(x)) throw new Error(`json: unsupported value: ${x}`);
    return x;
  };
  return JSON.stringify(sortKeys(v), null, indent).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Go's `strings.Title`: the first letter of each word upper-cased; ASCII other than letters, digits and `_` separates words, as does white space. */
function title(s: string): string {
  let prev = ' ';
  let out = '';
  for (const c of s) {
    const sep = /^[\x00-\x7f]$/.test(prev) ? !/^[A-Za-z0-9_]$/.test(prev) : /^\s$/u.test(prev);
    out += sep ? c.toUpperCase() : c;
    prev = c;
  }
  return out;
}

function base64Decode(v: Value): string {
  const s = str('base64Decode', v);
  const bad = s.search(/[^A-Za-z0-9+/=]/);
  if (bad >= 0) throw new Error(`base64Decode: illegal base64 data at input byte ${bad}`);
  if (s.length % 4 !== 0 || /=[^=]/.test(s) || /={3,}$/.test(s))
    throw new Error(`base64Decode: illegal base64 data at input byte ${Math.max(0, s.length - (s.length % 4 || 4))}`);
  return Buffer.from(s, 'base64').toString('utf8');
}

function contains(v: Value, l: Value): boolean {
  if (Array.isArray(l)) return l.some((x) => x === v);
  if (typeof l === 'string') return l.includes(str('contains', v));
  if (l === null) return false;
  throw new Error(`contains: cannot check membership in type ${typeOf(l)}`);
}

/** What the helpers read from outside the template: the task's environment and the clock. */
export interface HelperContext {
  readonly env: Readonly<Record<string, string>>;
  /** Now; default the system clock. */
  readonly now?: () => Date;
}

/** The helper functions (module doc), bound to `ctx`. */
export function helperFunctions(ctx: HelperContext): FuncMap {
  const now = ctx.now ?? (() => new Date());
  return {
    toJSON: templateFunc((v) => (v === null ? '' : goJson(v))),
    toJSONPretty: templateFunc((v) => (v === null ? '' : goJson(v, '  '))),
    parseJSON: templateFunc((v) => {
      const s = str('parseJSON', v);
      return s === '' ? {} : (JSON.parse(s) as Value);
    }),
    toLower: templateFunc((v) => str('toLower', v).toLowerCase()),
    toUpper: templateFunc((v) => str('toUpper', v).toUpperCase()),
    toTitle: templateFunc((v) => title(str('toTitle', v))),
    trimSpace: templateFunc((v) => str('trimSpace', v).trim()),
    split: templateFunc((sep, v) => {
      const s = str('split', v).trim();
      return s === '' ? [] : s.split(str('split', sep));
    }),
    join: templateFunc((sep, list) => {
      if (!Array.isArray(list)) throw new Error(`join: expected a list, got ${typeOf(list)}`);
      return list.map((x) => str('join', x)).join(str('join', sep));
    }),
    replaceAll: templateFunc((from, to, v) => str('replaceAll', v).replaceAll(str('replaceAll', from), str('replaceAll', to))),
    contains: templateFunc(contains),
    base64Encode: templateFunc((v) => Buffer.from(str('base64Encode', v), 'utf8').toString('base64')),
    base64Decode: templateFunc(base64Decode),
    timestamp: templateFunc(
      (layout) => {
        const t = now();
        if (layout === undefined) return t.toISOString().replace(/\.\d{3}Z$/, 'Z');
        if (layout === 'unix') return String(Math.floor(t.getTime() / 1000));
        return formatGoTime(t, str('timestamp', layout));
      },
      0,
      1,
    ),
    env: templateFunc((name) => {
      const n = str('env', name);
      return Object.hasOwn(ctx.env, n) ? ctx.env[n] : '';
    }),
  };
}
