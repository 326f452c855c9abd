/**
 * One render of a job's template (reference/integration.md §3): the template text parsed
 * once with the job template functions (helpers.ts, data.ts) on Go's `text/template`
 * engine (kernel/template), then executed synchronously over a cache of fetched
 * dependencies. The result says what the render touched (`used`: what to fetch and watch)
 * and what it still waits for (`missing`); a runner fetches, stores the values in the cache
 * and renders again until nothing is missing, then writes `output`.
 *
 * ```ts
 * const t = parseJobTemplate('{{ with secret "secret/data/web" }}{{ .Data.data.pw }}{{ end }}', { name: 'web.env' });
 * renderJobTemplate(t, { cache: new Map(), env: {} }); // { output: '', missing: [{ kind: 'secret.read', … }], used: [same] }
 * ```
 *
 * @module
 */
import { parseTemplate, TemplateError, type Template } from '../../../kernel/template/index.js';
import { dataFunctions } from './data.js';
import { describeDependency, type Dependency } from './dependency.js';
import { helperFunctions, type HelperContext } from './helpers.js';

/** How a job's `template` block asks its text to be read. */
export interface JobTemplateOptions {
  /** Names the template in errors: the destination, as the reference's `(dynamic): template: <dest>:3: …`. */
  readonly name: string;
  /** `left_delimiter` / `right_delimiter`; empty: `{{` / `}}`. */
  readonly leftDelim?: string;
  readonly rightDelim?: string;
  /** `error_on_missing_key`: a missing map key is an error instead of `<no value>`. */
  readonly errorOnMissingKey?: boolean;
}

/** What a render reads besides the template: fetched dependencies, the task's environment, the clock. */
export interface RenderContext extends HelperContext {
  /** Values by {@link describeDependency} text (dependency.ts says each kind's value). */
  readonly cache: ReadonlyMap<string, unknown>;
}

/** A render's outcome (module doc); `output` is only meaningful when `missing` is empty. */
export interface RenderResult {
  readonly output: string;
  /** Dependencies the render waits for, each once, in first-use order. */
  readonly missing: readonly Dependency[];
  /** Every dependency the render touched, each once, in first-use order. */
  readonly used: readonly Dependency[];
}

/** The job template functions, bound to nothing: for parsing (the engine checks names at parse time). */
const PARSE_FUNCS = { ...helperFunctions({ env: {} }), ...dataFunctions({ cache: new Map(), record: () => undefined }) };

/**
 * Parses a job template's text with the job template functions (module doc).
 * @throws TemplateError in Go's wording with the line, e.g. `template: local/app.env:3: function "secert" not defined`.
 */
export function parseJobTemplate(text: string, options: JobTemplateOptions): Template {
  return parseTemplate(text, {
    name: options.name,
    ...(options.leftDelim && { leftDelim: options.leftDelim }),
    ...(options.rightDelim && { rightDelim: options.rightDelim }),
    funcs: PARSE_FUNCS,
    missingKey: options.errorOnMissingKey ? 'error' : 'default',
  });
}

/**
 * Renders `template` over `ctx` (module doc). An execution error while dependencies are
 * missing is not the template's fault (its data is not there yet): the result then has an
 * empty output and the missing list. @throws TemplateError when the render fails with
 * nothing missing (a bound hit, `error_on_missing_key`, a function's error).
 */
export function renderJobTemplate(template: Template, ctx: RenderContext): RenderResult {
  const used = new Map<string, Dependency>();
  const missing = new Map<string, Dependency>();
  const record = (d: Dependency, isMissing: boolean): void => {
    const key = describeDependency(d);
    if (!used.has(key)) used.set(key, d);
    if (isMissing && !missing.has(key)) missing.set(key, d);
  };
  const funcs = { ...helperFunctions(ctx), ...dataFunctions({ cache: ctx.cache, record }) };
  let output = '';
  try {
    // consul-template runs templates over no data: `{{ . }}` is `<no value>`.
    output = template.execute(undefined, funcs);
  } catch (err) {
    if (!(err instanceof TemplateError) || missing.size === 0) throw err;
  }
  return { output, missing: [...missing.values()], used: [...used.values()] };
}

/** Most dependencies a `Missing:` event names before `and N more` (the reference's limit). */
const MISSING_EVENT_LIMIT = 3;

/** The task event text of a waiting template, as the reference's: `Missing: kv.block(app/config), secret.read(secret/data/web)`, sorted, at most three then `and N more`. */
export function missingMessage(missing: readonly Dependency[]): string {
  const names = missing.map(describeDependency).sort();
  if (names.length > MISSING_EVENT_LIMIT) names.splice(MISSING_EVENT_LIMIT, names.length, `and ${names.length - MISSING_EVENT_LIMIT} more`);
  return `Missing: ${names.join(', ')}`;
}
