/**
 * The line a policy error names: a syntax error says `line N, column M` (kernel/config/hcl.ts);
 * a rule error names its block (`path "x": invalid capability …`), found in the text.
 * Returns a 1-based line, or undefined.
 */
export function policyErrorLine(message: string, text: string): number | undefined {
  const at = /line (\d+)(?:, column \d+)?/.exec(message);
  if (at) return Number(at[1]);
  const block = /path "((?:[^"\\]|\\.)*)"/.exec(message);
  if (!block) return undefined;
  const i = text.split('\n').findIndex((l) => l.includes(`"${block[1]}"`));
  return i < 0 ? undefined : i + 1;
}
