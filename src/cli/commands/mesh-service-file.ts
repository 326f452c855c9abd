/**
 * Service definitions from files for `cairn mesh services register|deregister FILE…`
 * (reference: `consul services register web.hcl`): HCL or JSON (the kernel's `parseHcl`
 * reads both) with a `service { … }` block (one or more) or a `services = [ … ]` list, keys
 * in the configuration's snake_case (`enable_tag_override`) or the API's names
 * (`EnableTagOverride`). The result is what `PUT /v1/agent/service/register` takes.
 *
 * @module
 */
import { readFileSync } from 'node:fs';
import { parseHcl } from '../../kernel/config/index.js';
import type { MeshServiceRegistration } from '../../sdk/index.js';

/** Words the API spells in capitals (`service_id` → `ServiceID`, `tls_skip_verify` → `TLSSkipVerify`). */
const ACRONYMS = new Set(['id', 'ttl', 'http', 'tcp', 'tls', 'grpc', 'udp']);
/** Keys whose values are maps of the user's own keys, kept as they are. */
const USER_MAPS = new Set(['Meta', 'TaggedAddresses', 'Header']);

/** `enable_tag_override` → `EnableTagOverride`; a key already capitalised stays. */
function apiKey(key: string): string {
  if (/^[A-Z]/.test(key)) return key;
  return key
    .split('_')
    .map((w) => (ACRONYMS.has(w) ? w.toUpperCase() : w.charAt(0).toUpperCase() + w.slice(1)))
    .join('');
}

/** HCL gives every block as a list of objects (`meta { … }` → `[{…}]`): one object for a block used once. */
function block(value: unknown): unknown {
  if (Array.isArray(value) && value.length > 0 && value.every((v) => typeof v === 'object' && v !== null && !Array.isArray(v))) {
    return value.length === 1 ? value[0] : Object.assign({}, ...value);
  }
  return value;
}

/** An object with its keys in the API's names, down through checks and weights (not into user maps). */
function apiObject(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [k, raw] of Object.entries(value)) {
    const key = apiKey(k);
    if (key === 'Checks' || key === 'Tags') out[key] = Array.isArray(raw) ? raw.map(apiObject) : raw;
    else if (USER_MAPS.has(key)) out[key] = block(raw);
    else out[key] = apiObject(block(raw));
  }
  return out;
}

/**
 * The service definitions of `file`.
 * @throws Error naming the file: unreadable, not HCL/JSON (with line and column), or with no
 *   `service` / `services` definition.
 */
export function servicesFromFile(file: string): MeshServiceRegistration[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(`cannot read ${file}: ${(err as Error).message}`);
  }
  const doc = parseHcl(text, file) as Record<string, unknown> | null;
  const defs: unknown[] = [];
  for (const key of ['service', 'Service', 'services', 'Services']) {
    const v = doc?.[key];
    if (v === undefined) continue;
    defs.push(...(Array.isArray(v) ? v : [v]));
  }
  if (defs.length === 0) throw new Error(`${file} has no service definition (a service { … } block or a services list)`);
  return defs.map((d) => apiObject(d) as MeshServiceRegistration);
}
