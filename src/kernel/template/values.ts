/**
 * How the engine sees JavaScript values as Go values (the model every part of the engine
 * shares):
 *
 * | JavaScript                          | Go                                   |
 * | ----------------------------------- | ------------------------------------ |
 * | `undefined`                         | an invalid value (prints `<no value>`) |
 * | `null`                              | `nil` (prints `<nil>`)               |
 * | string, boolean                     | `string`, `bool`                     |
 * | number: integer / not               | `int` / `float64`                    |
 * | array                               | `[]interface {}`                     |
 * | plain object, `Map`                 | `map[string]interface {}` (keys sorted when ranged or printed) |
 * | other object (a class instance)     | a struct: a missing field is an error; function-valued fields are methods |
 * | function                            | a function value                     |
 *
 * Difference from Go: a float64 holding a whole number (`parseJSON` of `1000000`) is an int
 * here, so it prints `1000000` where Go prints `1e+06`.
 *
 * @module
 */

/** A value the engine handles (module doc). */
export type Value = unknown;

/** Whether `v` is a Go map: a plain object or a `Map`. */
export function isMap(v: Value): v is Record<string, unknown> | Map<unknown, unknown> {
  if (v instanceof Map) return true;
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
}

/** Whether `v` is a struct: an object that is neither a map nor an array. */
export function isStruct(v: Value): v is object {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !isMap(v);
}

/**
 * Field or method `name` of struct `v`: an own property, or one of its class's prototypes
 * (methods, getters); never what every object inherits (`constructor`, `__proto__`,
 * `toString`, …), so a template cannot reach JavaScript's machinery.
 */
export function structMember(v: object, name: string): { value: Value } | undefined {
  if (name === 'constructor' || name.startsWith('__')) return undefined;
  for (let o: object | null = v; o !== null && o !== Object.prototype; o = Object.getPrototypeOf(o) as object | null) {
    if (Object.hasOwn(o, name)) return { value: (v as Record<string, unknown>)[name] };
  }
  return undefined;
}

/** A map's entries with keys sorted as Go's `fmtsort` (numbers numerically, strings by code unit). */
export function sortedEntries(m: Record<string, unknown> | Map<unknown, unknown>): [unknown, unknown][] {
  const entries: [unknown, unknown][] = m instanceof Map ? [...m.entries()] : Object.entries(m);
  return entries.sort(([a], [b]) => {
    if (typeof a === 'number' && typeof b === 'number') return a - b;
    const x = String(a);
    const y = String(b);
    return x < y ? -1 : x > y ? 1 : 0;
  });
}

/** The entry `key` of a map, undefined when absent. */
export function mapGet(m: Record<string, unknown> | Map<unknown, unknown>, key: unknown): Value {
  if (m instanceof Map) return m.get(key);
  const k = String(key);
  return Object.hasOwn(m, k) ? m[k] : undefined;
}

/** Go's type name of `v`, as errors and `%T` show it. */
export function typeName(v: Value): string {
  if (v === undefined || v === null) return '<nil>';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int' : 'float64';
  if (typeof v === 'function') return 'func(...) interface {}';
  if (Array.isArray(v)) return '[]interface {}';
  if (isMap(v)) return 'map[string]interface {}';
  return `*${(v as object).constructor?.name ?? 'struct'}`;
}

/** Go's truth (`if`, `with`, `and`, `or`, `not`): false for the zero value of its type and for nil. */
export function truth(v: Value): boolean {
  if (v === undefined || v === null) return false;
  if (typeof v === 'boolean') return v;
  if (typeof v === 'number') return v !== 0;
  if (typeof v === 'string') return v.length > 0;
  if (Array.isArray(v)) return v.length > 0;
  if (v instanceof Map) return v.size > 0;
  if (isMap(v)) return Object.keys(v).length > 0;
  return true;
}

/** Go's `%v` of a float64 (`strconv` 'g', shortest): `3.5`, `1.5e+06`, `1e-05`. */
export function formatFloat(f: number): string {
  if (Number.isNaN(f)) return 'NaN';
  if (!Number.isFinite(f)) return f > 0 ? '+Inf' : '-Inf';
  if (Number.isInteger(f) && Math.abs(f) < 1e21) {
    const exp = Math.abs(f) === 0 ? 0 : Math.floor(Math.log10(Math.abs(f)));
    if (exp < 6) return String(f);
  }
  const [mant, e] = f.toExponential().split('e') as [string, string];
  const exp = Number(e);
  if (exp < -4 || exp >= 6) return `${mant}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  return String(f);
}

/** Go's `%v` of a number: ints in decimal, floats as {@link formatFloat}. */
function formatNumber(n: number): string {
  return Number.isInteger(n) && Number.isSafeInteger(n) ? String(n) : formatFloat(n);
}

/** Go's `fmt.Sprint` of one value (`%v`): `[a b]`, `map[k:v]`, `{f1 f2}`, `<nil>`. */
export function formatValue(v: Value, depth = 0): string {
  if (depth > 64) return '...';
  if (v === undefined) return depth === 0 ? '<no value>' : '<nil>';
  if (v === null) return '<nil>';
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return formatNumber(v);
  if (typeof v === 'boolean') return String(v);
  if (typeof v === 'function') return '0x0';
  if (Array.isArray(v)) return `[${v.map((x) => formatValue(x, depth + 1)).join(' ')}]`;
  if (isMap(v))
    return `map[${sortedEntries(v)
      .map(([k, x]) => `${formatValue(k, depth + 1)}:${formatValue(x, depth + 1)}`)
      .join(' ')}]`;
  if (typeof (v as { toString?: unknown }).toString === 'function' && (v as object).toString !== Object.prototype.toString) return String(v);
  return `{${Object.values(v as object)
    .map((x) => formatValue(x, depth + 1))
    .join(' ')}}`;
}
