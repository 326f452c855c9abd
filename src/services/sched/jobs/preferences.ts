/**
 * Placement preferences (the reference's `affinity` and `spread` blocks; its `structs.Affinity`,
 * `structs.Spread`, `SpreadTarget`): soft rules the scheduler's ranking weighs
 * (scheduler/preferences.ts), never filters. Affinities stand on the job, its groups and
 * tasks (`LTarget`, `RTarget`, `Operand` as constraints, `Weight` in [-100, 100], not 0,
 * default 50); spreads on the job and its groups (`Attribute`, `Weight` in [1, 100], default
 * 50, `SpreadTarget` values with the percentage of the group's allocations each should get).
 *
 * @module
 */
import { fieldOf } from '../go-struct.js';
import { schedBadRequest } from '../http.js';
import { jsonKind } from '../../../kernel/util/go-struct.js';
import { isObject } from '../../../kernel/util/is-object.js';
import { CONSTRAINT_OPERANDS } from './defaults.js';
import type { Affinity, Spread } from './types.js';

/** The reference's default weight of an affinity and of a spread. */
const DEFAULT_WEIGHT = 50;

function list(v: unknown, path: string, goType: string): unknown[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw schedBadRequest(`json: cannot unmarshal ${jsonKind(v)} into Go struct field ${path} of type ${goType}`);
  return v;
}

function str(o: Record<string, unknown>, name: string, path: string): string {
  const v = fieldOf(o, name) ?? '';
  if (typeof v !== 'string') throw schedBadRequest(`json: cannot unmarshal ${jsonKind(v)} into Go struct field ${path}.${name} of type string`);
  return v;
}

function int(o: Record<string, unknown>, name: string, path: string, def: number): number {
  const v = fieldOf(o, name);
  if (v === undefined || v === null) return def;
  if (typeof v !== 'number' || !Number.isInteger(v))
    throw schedBadRequest(`json: cannot unmarshal ${jsonKind(v)} into Go struct field ${path}.${name} of type int8`);
  return v;
}

function obj(v: unknown, path: string, goType: string): Record<string, unknown> {
  if (!isObject(v)) throw schedBadRequest(`json: cannot unmarshal ${jsonKind(v)} into Go struct field ${path} of type ${goType}`);
  return v;
}

/** `Affinities` of `raw` (a job, group or task body at `path`); undefined when none. @throws 400 Go's decoder texts. */
export function decodeAffinities(raw: Record<string, unknown>, path: string): Affinity[] | undefined {
  const p = `${path}.Affinities`;
  const out = list(fieldOf(raw, 'Affinities'), p, '[]*api.Affinity')
    .filter((a) => a !== null)
    .map((a) => {
      const o = obj(a, p, 'api.Affinity');
      return {
        LTarget: str(o, 'LTarget', p),
        RTarget: str(o, 'RTarget', p),
        Operand: str(o, 'Operand', p) || '=',
        Weight: int(o, 'Weight', p, DEFAULT_WEIGHT),
      };
    });
  return out.length ? out : undefined;
}

/** `Spreads` of `raw` (a job or group body at `path`); undefined when none. @throws 400 Go's decoder texts. */
export function decodeSpreads(raw: Record<string, unknown>, path: string): Spread[] | undefined {
  const p = `${path}.Spreads`;
  const out = list(fieldOf(raw, 'Spreads'), p, '[]*api.Spread')
    .filter((s) => s !== null)
    .map((s) => {
      const o = obj(s, p, 'api.Spread');
      const targets = list(fieldOf(o, 'SpreadTarget'), `${p}.SpreadTarget`, '[]*api.SpreadTarget').map((t) => {
        const to = obj(t, `${p}.SpreadTarget`, 'api.SpreadTarget');
        return { Value: str(to, 'Value', `${p}.SpreadTarget`), Percent: int(to, 'Percent', `${p}.SpreadTarget`, 0) };
      });
      return { Attribute: str(o, 'Attribute', p), Weight: int(o, 'Weight', p, DEFAULT_WEIGHT), SpreadTarget: targets.length ? targets : null };
    });
  return out.length ? out : undefined;
}

/** The checks of affinities and spreads (the reference's `Affinity.Validate`, `Spread.Validate` texts). */
export function preferenceErrors(affinities: readonly Affinity[] | undefined, spreads: readonly Spread[] | undefined): string[] {
  const out: string[] = [];
  for (const a of affinities ?? []) {
    if (!(CONSTRAINT_OPERANDS as readonly string[]).includes(a.Operand) || a.Operand === 'distinct_hosts')
      out.push(`Unknown affinity operator ${JSON.stringify(a.Operand)}`);
    if (a.Weight === 0) out.push('Affinity weight cannot be zero');
    if (a.Weight > 100 || a.Weight < -100) out.push('Affinity weight must be within the range [-100,100]');
  }
  for (const s of spreads ?? []) {
    if (s.Attribute === '') out.push('Missing spread attribute');
    if (s.Weight <= 0 || s.Weight > 100) out.push('Spread block must have a positive weight from 0 to 100');
    const seen = new Set<string>();
    let sum = 0;
    for (const t of s.SpreadTarget ?? []) {
      if (t.Percent < 0 || t.Percent > 100) out.push(`Spread target percentage for value ${JSON.stringify(t.Value)} must be between 0 and 100`);
      if (seen.has(t.Value)) out.push(`Spread target value ${JSON.stringify(t.Value)} already defined`);
      seen.add(t.Value);
      sum += t.Percent;
    }
    if (sum > 100) out.push(`Sum of spread target percentages must not be greater than 100%; got ${sum}%`);
  }
  return out;
}
