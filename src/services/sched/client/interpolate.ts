/**
 * `${...}` interpolation in a task's `env` values and driver `config` (reference/integration.md
 * §1: the task's environment "also usable as `${...}` interpolation"; the reference's
 * `taskenv.ReplaceEnv`): `${CAIRN_PORT_http}` and any other variable of the task's
 * environment, the node's attributes `${attr.kernel.name}`, its metadata `${meta.rack}`, and
 * `${node.unique.id}`, `${node.unique.name}`, `${node.datacenter}`, `${node.class}`,
 * `${node.pool}`, `${node.region}`. A reference that names nothing known stays as written,
 * as the reference leaves it.
 *
 * @module
 */

/** What a node offers to interpolation: its attributes, metadata and identity. */
export interface NodeVars {
  readonly attributes: Readonly<Record<string, string>>;
  readonly meta: Readonly<Record<string, string>>;
  /** `unique.id`, `unique.name`, `datacenter`, `class`, `pool`, `region` → value. */
  readonly node: Readonly<Record<string, string>>;
}

/** Longest `${...}` body looked at: a longer one is left as written (bounds the work on a task's text). */
const MAX_REF = 256;
const REF = new RegExp(`\\$\\{([^{}]{1,${MAX_REF}})\\}`, 'g');

const own = (m: Readonly<Record<string, string>>, k: string): string | undefined => (Object.hasOwn(m, k) ? m[k] : undefined);

/** The value `ref` (the text between `${` and `}`) names, or undefined. */
function lookup(ref: string, env: Readonly<Record<string, string>>, vars: NodeVars): string | undefined {
  const k = ref.trim();
  if (k.startsWith('attr.')) return own(vars.attributes, k.slice(5));
  if (k.startsWith('meta.')) return own(vars.meta, k.slice(5));
  if (k.startsWith('node.')) return own(vars.node, k.slice(5));
  return own(env, k);
}

/** `text` with each `${...}` it names replaced (module doc). */
export function interpolate(text: string, env: Readonly<Record<string, string>>, vars: NodeVars): string {
  return text.replace(REF, (whole, ref: string) => lookup(ref, env, vars) ?? whole);
}

/** A driver `config` value with every string in it (nested lists and blocks too) interpolated; keys stay as written. */
export function interpolateConfig(v: unknown, env: Readonly<Record<string, string>>, vars: NodeVars): unknown {
  if (typeof v === 'string') return interpolate(v, env, vars);
  if (Array.isArray(v)) return v.map((x) => interpolateConfig(x, env, vars));
  if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, interpolateConfig(x, env, vars)]));
  return v;
}
