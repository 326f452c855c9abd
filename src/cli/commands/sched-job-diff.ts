/**
 * A job diff as the reference's CLI prints it without colour (`nomad job plan` and `job
 * history -p`, its `formatJobDiff`): the job line, its changed fields, nested objects as
 * `<marker><Name> {` … `}`, one line per task group with its update counts, and its tasks
 * (`+/- Task: "server"`) with their fields and objects, each level indented two spaces.
 * Unchanged fields and objects are printed only when `verbose`.
 *
 * @module
 */
import type { SchedDiffObject, SchedJobDiff, SchedPlanDiffField } from '../../sdk/index.js';

/** Diff markers by diff type (the reference's `getDiffString`, without colour). */
const MARKERS: Record<string, string> = { Added: '+ ', Deleted: '- ', Edited: '+/- ' };
const marker = (type: string): string => MARKERS[type] ?? '';

/** Fields, one a line: `<prefix><marker><Name>: "<old>" => "<new>"` (added: `"<new>"`, deleted: `"<old>"`, unchanged: `"<value>"`). */
function fieldLines(fields: readonly SchedPlanDiffField[] | null | undefined, prefix: string, verbose: boolean): string[] {
  return (fields ?? [])
    .filter((f) => verbose || f.Type !== 'None')
    .map((f) => {
      const value =
        f.Type === 'Added'
          ? JSON.stringify(f.New)
          : f.Type === 'Deleted'
            ? JSON.stringify(f.Old)
            : f.Type === 'None'
              ? JSON.stringify(f.New)
              : `${JSON.stringify(f.Old)} => ${JSON.stringify(f.New)}`;
      return `${prefix}${marker(f.Type)}${f.Name}: ${value}`;
    });
}

/** Nested objects, each `<prefix><marker><Name> {`, its fields and objects two spaces deeper, and `<prefix>}`. */
function objectLines(objects: readonly SchedDiffObject[] | null | undefined, prefix: string, verbose: boolean): string[] {
  return (objects ?? [])
    .filter((o) => verbose || o.Type !== 'None')
    .flatMap((o) => [
      `${prefix}${marker(o.Type)}${o.Name} {`,
      ...fieldLines(o.Fields, `${prefix}  `, verbose),
      ...objectLines(o.Objects, `${prefix}  `, verbose),
      `${prefix}}`,
    ]);
}

/** The diff's lines (see the module doc). */
export function formatJobDiff(diff: SchedJobDiff, verbose: boolean): string {
  const lines = [`${marker(diff.Type)}Job: ${JSON.stringify(diff.ID)}`];
  if (diff.Type === 'Edited' || verbose) lines.push(...fieldLines(diff.Fields, '', verbose), ...objectLines(diff.Objects, '', verbose));
  for (const tg of diff.TaskGroups ?? []) {
    const updates = Object.keys(tg.Updates ?? {})
      .sort()
      .map((k) => `${tg.Updates![k]} ${k}`);
    lines.push(`${marker(tg.Type)}Task Group: ${JSON.stringify(tg.Name)}${updates.length > 0 ? ` (${updates.join(', ')})` : ''}`);
    if (tg.Type !== 'Edited' && !verbose) continue;
    lines.push(...fieldLines(tg.Fields, '  ', verbose), ...objectLines(tg.Objects, '  ', verbose));
    for (const t of tg.Tasks ?? []) {
      if (t.Type === 'None' && !verbose) continue;
      const notes = t.Annotations?.length ? ` (${t.Annotations.join(', ')})` : '';
      lines.push(`  ${marker(t.Type)}Task: ${JSON.stringify(t.Name)}${notes}`);
      if (t.Type === 'Edited' || verbose) lines.push(...fieldLines(t.Fields, '    ', verbose), ...objectLines(t.Objects, '    ', verbose));
    }
  }
  return lines.join('\n');
}
