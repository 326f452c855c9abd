/**
 * Periodic jobs (the reference's `periodic` block; its `PeriodicConfig` and periodic
 * dispatcher): a batch job that is never scheduled itself; at each time its cron
 * expressions name, the leader launches a child `<id>/periodic-<unix seconds>` (scheduler/
 * periodic.ts). A child's ID is its launch time, so a launch is done at most once whichever
 * server leads; `prohibit_overlap` skips a launch while a child still runs.
 *
 * Cron expressions are parsed by `cron-parser` (5 fields, or 6 with seconds first, as the
 * reference's `cronexpr` takes them), in the block's `time_zone` (IANA name, default UTC).
 *
 * @module
 */
import { CronExpressionParser } from 'cron-parser';
import { fieldOf } from '../go-struct.js';
import { schedBadRequest } from '../http.js';
import { jsonKind } from '../../../kernel/util/go-struct.js';
import { isObject } from '../../../kernel/util/is-object.js';
import type { Job, PeriodicConfig } from './types.js';

/** The reference's `PeriodicLaunchSuffix`. */
const PERIODIC_LAUNCH_SUFFIX = '/periodic-';

/** At most this many cron expressions per job (Cairn's bound on input). */
const MAX_SPECS = 32;

function field<T>(raw: Record<string, unknown>, name: string, kind: 'string' | 'boolean', def: T): T {
  const v = fieldOf(raw, name);
  if (v === undefined || v === null) return def;
  if (typeof v !== kind)
    throw schedBadRequest(`json: cannot unmarshal ${jsonKind(v)} into Go struct field Job.Periodic.${name} of type ${kind === 'string' ? 'string' : 'bool'}`);
  return v as T;
}

/** `Job.Periodic` from the register body with the reference's defaults (`Enabled` true, `SpecType` `cron`, `TimeZone` `UTC`); undefined when absent or `null`. @throws 400 Go's decoder texts. */
export function decodePeriodic(raw: Record<string, unknown>): PeriodicConfig | undefined {
  const v = fieldOf(raw, 'Periodic');
  if (v === undefined || v === null) return undefined;
  if (!isObject(v)) throw schedBadRequest(`json: cannot unmarshal ${jsonKind(v)} into Go struct field Job.Periodic of type api.PeriodicConfig`);
  const specs = fieldOf(v, 'Specs');
  if (specs !== undefined && specs !== null && !(Array.isArray(specs) && specs.every((s) => typeof s === 'string')))
    throw schedBadRequest(`json: cannot unmarshal ${jsonKind(specs)} into Go struct field Job.Periodic.Specs of type []string`);
  return {
    Enabled: field(v, 'Enabled', 'boolean', true),
    Spec: field(v, 'Spec', 'string', ''),
    Specs: Array.isArray(specs) && specs.length ? [...(specs as string[])] : null,
    SpecType: field(v, 'SpecType', 'string', 'cron') || 'cron',
    ProhibitOverlap: field(v, 'ProhibitOverlap', 'boolean', false),
    TimeZone: field(v, 'TimeZone', 'string', 'UTC') || 'UTC',
  };
}

/** The expressions of `p`: its `Specs`, else its `Spec`. */
const expressions = (p: PeriodicConfig): string[] => [...(p.Specs ?? []), ...(p.Spec ? [p.Spec] : [])];

/** The job's periodic checks (the reference's texts where known). */
export function periodicErrors(job: Job): string[] {
  const p = job.Periodic;
  if (!p) return [];
  const out: string[] = [];
  if (job.Type !== 'batch' && job.Type !== 'sysbatch') out.push(`Periodic can only be used with "batch" or "sysbatch" scheduler`);
  if (job.ParameterizedJob) out.push('Periodic job can not be parameterized');
  if (p.SpecType !== 'cron') out.push(`Unknown periodic specification type ${JSON.stringify(p.SpecType)}`);
  const specs = expressions(p);
  if (p.Enabled && specs.length === 0) out.push('Must specify a spec');
  if (specs.length > MAX_SPECS) out.push(`at most ${MAX_SPECS} cron expressions are allowed, got ${specs.length}`);
  try {
    Intl.DateTimeFormat('en-US', { timeZone: p.TimeZone });
  } catch {
    out.push(`Invalid time zone ${JSON.stringify(p.TimeZone)}: unknown time zone ${p.TimeZone}`);
    return out;
  }
  for (const s of specs) {
    try {
      CronExpressionParser.parse(s, { tz: p.TimeZone });
    } catch (err) {
      out.push(`Invalid cron spec ${JSON.stringify(s)}: ${(err as Error).message}`);
    }
  }
  return out;
}

/** The first launch time strictly after `afterMs` (epoch ms) of any of `p`'s expressions; undefined when disabled or none. */
export function nextLaunch(p: PeriodicConfig, afterMs: number): number | undefined {
  if (!p.Enabled) return undefined;
  let best: number | undefined;
  for (const s of expressions(p)) {
    const t = CronExpressionParser.parse(s, { currentDate: new Date(afterMs), tz: p.TimeZone })
      .next()
      .getTime();
    if (t > afterMs && (best === undefined || t < best)) best = t;
  }
  return best;
}

/** The child `parent` launches at `launchMs` (the reference's `deriveJob`): ID `<id>/periodic-<unix s>`, `ParentID`, no `Periodic`. */
export function periodicChild(parent: Job, launchMs: number): Job {
  const id = `${parent.ID}${PERIODIC_LAUNCH_SUFFIX}${Math.floor(launchMs / 1000)}`;
  const { Periodic: _p, ...rest } = parent;
  return { ...rest, ID: id, Name: id, ParentID: parent.ID };
}
