/**
 * The difference between two versions of a job in the reference's `JobDiff` shape
 * (reference/sched-workloads.md "Jobs"; the reference's `structs.JobDiff`): a type
 * (`Added`, `Deleted`, `Edited`, `None`), the job's scalar fields, its nested objects, and
 * per task group (matched by name) its fields, objects and tasks (matched by name).
 *
 * Where the reference hand-writes a diff per struct, Cairn walks the JSON: a scalar is a
 * `FieldDiff` named by its field; a map of scalars (`Meta`, `Env`) is flattened into fields
 * `Meta[key]`; a list of scalars (`Datacenters`, `args`) is an object whose fields are its
 * members, compared as a set; an object is an `ObjectDiff` named by its field; a list of
 * objects is one `ObjectDiff` per member, matched by position. A contextual diff (the
 * versions API's) also lists the unchanged scalar fields of an edited object; an unchanged
 * object is left out either way. docs/compatibility.md says where names differ.
 *
 * @module
 */
import type { Job } from './types.js';

/** `Added`, `Deleted`, `Edited` or `None`. */
type DiffType = 'Added' | 'Deleted' | 'Edited' | 'None';

/** One scalar field (the reference's `FieldDiff`); `Old`/`New` as strings, `""` when absent. */
interface FieldDiff {
  readonly Type: DiffType;
  readonly Name: string;
  readonly Old: string;
  readonly New: string;
  readonly Annotations: readonly string[] | null;
}

/** A nested object (the reference's `ObjectDiff`). */
interface ObjectDiff {
  readonly Type: DiffType;
  readonly Name: string;
  readonly Fields: FieldDiff[] | null;
  readonly Objects: ObjectDiff[] | null;
}

/** A task (the reference's `TaskDiff`). */
interface TaskDiff extends ObjectDiff {
  readonly Annotations: readonly string[] | null;
}

/** A task group (the reference's `TaskGroupDiff`); `Updates` counts what a plan does to it (`create`, `destroy`, …). */
interface TaskGroupDiff extends ObjectDiff {
  readonly Tasks: TaskDiff[] | null;
  readonly Updates: Readonly<Record<string, number>> | null;
}

/** The reference's `JobDiff`. */
export interface JobDiff {
  readonly Type: DiffType;
  readonly ID: string;
  readonly Fields: FieldDiff[] | null;
  readonly Objects: ObjectDiff[] | null;
  readonly TaskGroups: TaskGroupDiff[] | null;
}

/** Fields that say what a job is at, not what it runs: never diffed. */
const JOB_BOOKKEEPING = new Set([
  'Status',
  'StatusDescription',
  'Stable',
  'Version',
  'SubmitTime',
  'CreateIndex',
  'ModifyIndex',
  'JobModifyIndex',
  'TaskGroups',
]);

type Json = unknown;
type Obj = Readonly<Record<string, Json>>;

const isObj = (v: Json): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const isScalar = (v: Json) => v === null || v === undefined || typeof v !== 'object';
const isScalarMap = (v: Json): v is Obj => isObj(v) && Object.values(v).every(isScalar);
const text = (v: Json) => (v === null || v === undefined ? '' : String(v));
const typeOf = (old: Json, next: Json): DiffType =>
  old === undefined || old === null ? (next === undefined || next === null ? 'None' : 'Added') : next === undefined || next === null ? 'Deleted' : 'Edited';

function field(name: string, old: Json, next: Json): FieldDiff {
  const changed = text(old) !== text(next);
  return {
    Type: changed ? typeOf(old === '' ? undefined : old, next === '' ? undefined : next) : 'None',
    Name: name,
    Old: text(old),
    New: text(next),
    Annotations: null,
  };
}

/** Sorted by name, as the reference sorts its diffs; `null` for none (its JSON of an empty slice). */
const sorted = <T extends { Name: string }>(xs: T[]): T[] | null => (xs.length ? xs.sort((a, b) => (a.Name < b.Name ? -1 : a.Name > b.Name ? 1 : 0)) : null);

/** The fields and objects of `old` → `next` (either may be absent), skipping `skip`. */
function members(old: Obj | undefined, next: Obj | undefined, contextual: boolean, skip: ReadonlySet<string> = new Set()) {
  const fields: FieldDiff[] = [];
  const objects: ObjectDiff[] = [];
  const keys = new Set([...Object.keys(old ?? {}), ...Object.keys(next ?? {})]);
  for (const key of keys) {
    if (skip.has(key)) continue;
    const a = old?.[key];
    const b = next?.[key];
    if (isScalar(a) && isScalar(b)) {
      const f = field(key, a, b);
      if (f.Type !== 'None' || contextual) fields.push(f);
    } else if ((isScalarMap(a) || a == null) && (isScalarMap(b) || b == null)) {
      for (const k of new Set([...Object.keys(a ?? {}), ...Object.keys(b ?? {})])) {
        const f = field(`${key}[${k}]`, a?.[k], b?.[k]);
        if (f.Type !== 'None' || contextual) fields.push(f);
      }
    } else {
      const o = objectDiff(key, a, b, contextual);
      if (o) objects.push(...o);
    }
  }
  return { fields, objects };
}

/** The object diffs of field `name` (one per member for a list of objects); none when nothing changed. */
function objectDiff(name: string, old: Json, next: Json, contextual: boolean): ObjectDiff[] {
  const a = Array.isArray(old) ? old : old == null ? [] : [old];
  const b = Array.isArray(next) ? next : next == null ? [] : [next];
  if (a.every(isScalar) && b.every(isScalar) && (Array.isArray(old) || Array.isArray(next))) {
    // A list of scalars compares as a set, each member a field named by the list.
    const fields = [
      ...a.filter((x) => !b.includes(x)).map((x) => field(name, x, undefined)),
      ...b.filter((x) => !a.includes(x)).map((x) => field(name, undefined, x)),
    ];
    if (fields.length === 0) return [];
    return [{ Type: typeOf(a.length ? a : undefined, b.length ? b : undefined), Name: name, Fields: fields, Objects: null }];
  }
  const out: ObjectDiff[] = [];
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const x = isObj(a[i]) ? a[i] : undefined;
    const y = isObj(b[i]) ? b[i] : undefined;
    if (JSON.stringify(x) === JSON.stringify(y)) continue;
    const { fields, objects } = members(x, y, contextual);
    out.push({ Type: typeOf(x, y), Name: name, Fields: sorted(fields), Objects: sorted(objects) });
  }
  return out;
}

/** The diffs of the named members (task groups, tasks) of two lists, matched by `Name`. */
function byName<T extends { Name: string }, D>(
  old: readonly T[],
  next: readonly T[],
  one: (name: string, a: T | undefined, b: T | undefined) => D | undefined,
): D[] {
  const names = [...new Set([...old.map((x) => x.Name), ...next.map((x) => x.Name)])].sort();
  return names.flatMap((n) => {
    const d = one(
      n,
      old.find((x) => x.Name === n),
      next.find((x) => x.Name === n),
    );
    return d === undefined ? [] : [d];
  });
}

type Named = Obj & { readonly Name: string };

/** The diff of a named object (a task), with its fields and objects; undefined when unchanged and not `contextual`. */
function namedDiff(a: Named | undefined, b: Named | undefined, contextual: boolean, skip?: ReadonlySet<string>) {
  const name = (a ?? b)!.Name;
  const same = JSON.stringify(a) === JSON.stringify(b);
  if (same && !contextual) return undefined;
  const { fields, objects } = same ? { fields: [], objects: [] } : members(a, b, contextual, skip);
  return { Type: same ? ('None' as const) : typeOf(a, b), Name: name, Fields: sorted(fields), Objects: sorted(objects) };
}

const TASKS = new Set(['Tasks']);

/**
 * The diff from `old` (undefined: the job is new) to `next`. `contextual` (the versions
 * API): the unchanged scalar fields of an edited object are listed too, and every group
 * and task appears; otherwise (a plan) only what changed. `updates`: each group's plan
 * counts (`Updates`).
 */
export function jobDiff(
  old: Job | undefined,
  next: Job,
  o: { contextual: boolean; updates?: Readonly<Record<string, Readonly<Record<string, number>>>> },
): JobDiff {
  const { fields, objects } = members(old as unknown as Obj | undefined, next as unknown as Obj, o.contextual, JOB_BOOKKEEPING);
  const groups = byName(old?.TaskGroups ?? [], next.TaskGroups, (name, a, b) => {
    const d = namedDiff(a as unknown as Named, b as unknown as Named, o.contextual || o.updates?.[name] !== undefined, TASKS);
    if (!d) return undefined;
    const tasks = byName(a?.Tasks ?? [], b?.Tasks ?? [], (_name, x, y) => {
      const t = namedDiff(x as unknown as Named, y as unknown as Named, o.contextual);
      return t && { ...t, Annotations: null };
    });
    return { ...d, Tasks: tasks.length ? tasks : null, Updates: o.updates?.[name] ?? null };
  });
  const changed = fields.some((f) => f.Type !== 'None') || objects.length > 0 || groups.some((g) => g.Type !== 'None');
  return {
    Type: !old ? 'Added' : changed ? 'Edited' : 'None',
    ID: next.ID,
    Fields: sorted(fields),
    Objects: sorted(objects),
    TaskGroups: groups.length ? groups : null,
  };
}
