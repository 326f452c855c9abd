/**
 * The `service` blocks of an HCL job file (group and task level; reference/integration.md §2)
 * → the job API's `Services` JSON (jobs/services.ts), for hcl.ts:
 *
 * ```hcl
 * service {
 *   name = "${JOB}-web"   port = "http"   tags = ["v1"]   provider = "consul"
 *   meta { version = "1" }   canary_tags = ["canary"]   canary_meta { version = "2" }
 *   check {
 *     type = "http"  path = "/health"  interval = "10s"  timeout = "2s"
 *     header { X-Probe = ["cairn"] }
 *   }
 *   check_restart { limit = 3  grace = "10s" }
 * }
 * ```
 *
 * Durations are Go duration strings; `port` is a label or a number.
 *
 * @module
 */
import { defined, duration, issue, type Body } from './hcl-values.js';

const checkRestart = {
  kind: 'block',
  keys: { limit: { kind: 'int' }, grace: { kind: 'raw' }, ignore_warnings: { kind: 'bool' } },
} as const;

/** The keys of a `service` block (kernel/config schema). */
export const SERVICE_HCL_KEYS = {
  kind: 'block',
  repeated: true,
  keys: {
    name: { kind: 'string' },
    port: { kind: 'raw' },
    provider: { kind: 'string' },
    tags: { kind: 'list', of: 'string' },
    canary_tags: { kind: 'list', of: 'string' },
    meta: { kind: 'raw' },
    canary_meta: { kind: 'raw' },
    address: { kind: 'string' },
    address_mode: { kind: 'string' },
    enable_tag_override: { kind: 'bool' },
    on_update: { kind: 'string' },
    task: { kind: 'string' },
    check_restart: checkRestart,
    check: {
      kind: 'block',
      repeated: true,
      keys: {
        name: { kind: 'string' },
        type: { kind: 'string' },
        port: { kind: 'raw' },
        path: { kind: 'string' },
        method: { kind: 'string' },
        protocol: { kind: 'string' },
        header: { kind: 'raw' },
        body: { kind: 'string' },
        interval: { kind: 'raw' },
        timeout: { kind: 'raw' },
        initial_status: { kind: 'string' },
        success_before_passing: { kind: 'int' },
        failures_before_critical: { kind: 'int' },
        command: { kind: 'string' },
        args: { kind: 'list', of: 'string' },
        task: { kind: 'string' },
        address_mode: { kind: 'string' },
        tls_skip_verify: { kind: 'bool' },
        on_update: { kind: 'string' },
        check_restart: checkRestart,
      },
    },
  },
} as const;

/** `port = "http"` or `port = 8080`: the reference's `PortLabel` text. @throws ConfigError for anything else. */
function port(b: Body): string | undefined {
  const v = b.port;
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'string' || (typeof v === 'number' && Number.isSafeInteger(v) && v > 0 && v < 65536)) return String(v);
  throw issue(b.$at, 'port', '"port" must be a port label (a string) or a port number');
}

/** The blocks HCL1 wraps in lists, merged: `meta { … }`, `header { … }`. @throws ConfigError for a non-block. */
function merged(b: Body, key: string): Record<string, unknown> | undefined {
  const v = b[key];
  if (v === undefined || v === null) return undefined;
  const out: Record<string, unknown> = {};
  for (const p of Array.isArray(v) ? v : [v]) {
    if (typeof p !== 'object' || p === null || Array.isArray(p)) throw issue(b.$at, key, `"${key}" must be a block`);
    Object.assign(out, p);
  }
  return out;
}

/** `meta { … }` or `canary_meta { … }` (`key`): string values (numbers and booleans as text). */
function meta(b: Body, key = 'meta'): Record<string, string> | undefined {
  const o = merged(b, key);
  if (!o) return undefined;
  return Object.fromEntries(
    Object.entries(o).map(([k, v]) => {
      if (typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean') throw issue(b.$at, key, `"${key}": the value of "${k}" must be a string`);
      return [k, String(v)];
    }),
  );
}

/** `header { Name = ["v1", "v2"] }` (a single string is one value). */
function header(b: Body): Record<string, string[]> | undefined {
  const o = merged(b, 'header');
  if (!o) return undefined;
  return Object.fromEntries(
    Object.entries(o).map(([k, v]) => {
      const list = Array.isArray(v) ? v : [v];
      if (!list.every((x) => typeof x === 'string')) throw issue(b.$at, 'header', `"header": the value of "${k}" must be a list of strings`);
      return [k, list as string[]];
    }),
  );
}

function restart(b: Body | undefined): Record<string, unknown> | undefined {
  return b && defined({ Limit: b.limit, Grace: duration(b, 'grace'), IgnoreWarnings: b.ignore_warnings });
}

function check(c: Body): Record<string, unknown> {
  return defined({
    Name: c.name,
    Type: c.type,
    PortLabel: port(c),
    Path: c.path,
    Method: c.method,
    Protocol: c.protocol,
    Header: header(c),
    Body: c.body,
    Interval: duration(c, 'interval'),
    Timeout: duration(c, 'timeout'),
    InitialStatus: c.initial_status,
    SuccessBeforePassing: c.success_before_passing,
    FailuresBeforeCritical: c.failures_before_critical,
    Command: c.command,
    Args: c.args,
    TaskName: c.task,
    AddressMode: c.address_mode,
    TLSSkipVerify: c.tls_skip_verify,
    OnUpdate: c.on_update,
    CheckRestart: restart(c.check_restart as Body | undefined),
  });
}

/**
 * The `Services` JSON of a group's or task's `service` blocks (undefined for none).
 * @throws ConfigError at the line: a bad duration, port, `meta` or `header` value.
 */
export function servicesFromHcl(list: readonly Body[] | undefined): Record<string, unknown>[] | undefined {
  if (!list || list.length === 0) return undefined;
  return list.map((s) =>
    defined({
      Name: s.name,
      PortLabel: port(s),
      Provider: s.provider,
      Tags: s.tags,
      CanaryTags: s.canary_tags,
      Meta: meta(s),
      CanaryMeta: meta(s, 'canary_meta'),
      Address: s.address,
      AddressMode: s.address_mode,
      EnableTagOverride: s.enable_tag_override,
      OnUpdate: s.on_update,
      TaskName: s.task,
      CheckRestart: restart(s.check_restart as Body | undefined),
      Checks: (s.check as Body[]).length > 0 ? (s.check as Body[]).map(check) : undefined,
    }),
  );
}
