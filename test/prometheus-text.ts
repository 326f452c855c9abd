/**
 * A strict reader of the Prometheus text exposition format 0.0.4, for tests of the metrics
 * endpoints: every line must be a `# HELP`, a `# TYPE` or a sample of a family whose
 * `# TYPE` came first; names, label names, escapes and values must be well formed. Any
 * other line throws, naming it.
 */

/** One sample line. */
export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

const NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*';
const LABEL = '[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\\\\n]|\\\\[\\\\"n])*"';
// What Prometheus' own parser takes (Go's ParseFloat): NaN and Inf in any case (prom-client writes `Nan`).
const VALUE = '(?:[-+]?(?:\\d+(?:\\.\\d*)?|\\.\\d+)(?:[eE][-+]?\\d+)?|[nN][aA][nN]|[-+]?[iI][nN][fF])';
const SAMPLE = new RegExp(`^(${NAME})(?:\\{((?:${LABEL})(?:,${LABEL})*)?,?\\})? (${VALUE})(?: -?\\d+)?$`);
const HELP = new RegExp(`^# HELP (${NAME}) .*$`);
const TYPE = new RegExp(`^# TYPE (${NAME}) (counter|gauge|histogram|summary|untyped)$`);
const SUFFIXES: Readonly<Record<string, readonly string[]>> = { histogram: ['_bucket', '_sum', '_count'], summary: ['_sum', '_count', ''] };

/** Parses `text`; @throws Error naming the first malformed line. */
export function parsePrometheusText(text: string): Sample[] {
  const types = new Map<string, string>();
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || HELP.test(line)) continue;
    const t = TYPE.exec(line);
    if (t) {
      if (types.has(t[1])) throw new Error(`second # TYPE for ${t[1]}`);
      types.set(t[1], t[2]);
      continue;
    }
    const m = SAMPLE.exec(line);
    if (!m) throw new Error(`not a valid exposition line: ${JSON.stringify(line)}`);
    const [, name, rawLabels, value] = m;
    const family = [...types].find(([f, type]) => (SUFFIXES[type] ?? ['']).some((s) => name === f + s));
    if (!family) throw new Error(`sample ${name} has no # TYPE before it`);
    const labels: Record<string, string> = {};
    for (const [, k, v] of (rawLabels ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\[\\"n])*)"/g))
      labels[k] = v.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    samples.push({
      name,
      labels,
      value: /^[-+]?inf$/i.test(value) ? (value.startsWith('-') ? -Infinity : Infinity) : /^nan$/i.test(value) ? NaN : Number(value),
    });
  }
  return samples;
}

/** The value of the one sample named `name` whose labels include `labels`; undefined when none. @throws when several match. */
export function sampleValue(samples: readonly Sample[], name: string, labels: Readonly<Record<string, string>> = {}): number | undefined {
  const hits = samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  if (hits.length > 1) throw new Error(`${hits.length} samples of ${name} match ${JSON.stringify(labels)}`);
  return hits[0]?.value;
}
