/**
 * A bounded engine for Go's `text/template`, the language of the reference's job templates
 * (consul-template; reference/integration.md §3). `parseTemplate` checks a text once (at job
 * submission), `Template.execute` renders it over data with the functions given.
 *
 * ```ts
 * const t = parseTemplate('{{ range $k, $v := . }}{{ $k }}={{ $v | printf "%v" }}\n{{ end }}', { name: 'app.env' });
 * t.execute({ b: 'x', a: 1 }); // 'a=1\nb=x\n'
 * ```
 *
 * Why written here: the npm registry's implementations were evaluated (November 2026) and
 * none is both faithful and usable:
 * - `@ctrl/golang-template` 2.0.1 (MIT): "a subset" by its own README: fields, `if`/`else`,
 *   `and`/`or`/`not`; no variables, `range` over maps, `define`/`template`, pipelines of
 *   functions, custom function maps or bounds.
 * - `@evertdespiegeleer/go-template` 1.0.2 (ISC): Go's real engine compiled to a 5 MB wasm
 *   module; asynchronous only, no function map (the data functions `key`, `secret`, … cannot
 *   be supplied), no step or output bound (a long `range` blocks the event loop), one release.
 * - `@mdfriday/text-template` 26.4.1: a port, but `UNLICENSED` ("all rights reserved") and
 *   shipped minified and obfuscated.
 *
 * The engine restates Go's own: lex.ts (items), parse.ts (trees, parse-time checks),
 * exec.ts (walking, values.ts for how JavaScript values read as Go's), builtins.ts and
 * fmt.ts (Go's predefined functions and `fmt`). Errors are Go's texts
 * (`template: app.env:3: function "nope" not defined`, `template: app.env:1:3: executing
 * "app.env" at <.a.b>: nil pointer evaluating interface {}.b`); columns count UTF-16 units
 * where Go counts bytes (the same for ASCII).
 *
 * @module
 */
import { BUILTINS, type FuncMap } from './builtins.js';
import { TemplateError } from './errors.js';
import { execute, type MissingKey } from './exec.js';
import type { ListNode } from './nodes.js';
import { parseTrees } from './parse.js';
import type { Value } from './values.js';

export { TemplateError } from './errors.js';
export { templateFunc, type FuncMap } from './builtins.js';
export type { Value } from './values.js';
export { isMap } from './values.js';

/** The bounds of one template. */
export interface TemplateLimits {
  /** Largest template text, bytes (UTF-8). */
  readonly maxInputBytes: number;
  /** Deepest nesting of control structures, parentheses and `{{template}}` calls. */
  readonly maxDepth: number;
  /** Most steps of one execution (exec.ts: nodes, commands, fields, range iterations, 256 bytes made by a function). */
  readonly maxSteps: number;
  /** Largest output of one execution, bytes (UTF-8); also the largest string one function call may return. */
  readonly maxOutputBytes: number;
}

/** Defaults: a 256 KiB text, 64 levels, a million steps, 4 MiB of output. */
const DEFAULT_TEMPLATE_LIMITS: TemplateLimits = { maxInputBytes: 256 * 1024, maxDepth: 64, maxSteps: 1_000_000, maxOutputBytes: 4 * 1024 * 1024 };

/** How to parse and run a template. */
export interface TemplateOptions {
  /** Names the template in errors; default `template`. */
  readonly name?: string;
  /** Action delimiters; default `{{` and `}}`. */
  readonly leftDelim?: string;
  readonly rightDelim?: string;
  /** Functions besides Go's builtins (which they may replace, as Go's `Funcs`). */
  readonly funcs?: FuncMap;
  /** Go's `missingkey` option; default `default` (`<no value>`). */
  readonly missingKey?: MissingKey;
  readonly limits?: Partial<TemplateLimits>;
}

/** A parsed template; {@link Template.execute} may run many times. */
export class Template {
  constructor(
    private readonly text: string,
    private readonly trees: ReadonlyMap<string, ListNode>,
    private readonly options: Required<Omit<TemplateOptions, 'leftDelim' | 'rightDelim' | 'limits'>> & { readonly limits: TemplateLimits },
  ) {}

  /** Names of the templates of the set: the main one and each `define`/`block`. */
  get names(): string[] {
    return [...this.trees.keys()];
  }

  /**
   * Renders the template over `data` with `funcs` (default: the functions given to
   * {@link parseTemplate}; these may be other closures of the same names, e.g. bound to one
   * render's dependency cache). @throws TemplateError with Go's text, also when a bound is hit.
   */
  execute(data: Value, funcs: FuncMap = this.options.funcs): string {
    const { limits } = this.options;
    return execute(
      {
        name: this.options.name,
        text: this.text,
        trees: this.trees,
        funcs: { ...BUILTINS, ...funcs },
        missingKey: this.options.missingKey,
        maxSteps: limits.maxSteps,
        maxOutputBytes: limits.maxOutputBytes,
        maxDepth: limits.maxDepth,
      },
      data,
    );
  }
}

/**
 * Parses `text` (module doc). @throws TemplateError: Go's parse texts with the line
 * (`template: <name>:<line>: <problem>`), or the text is over `maxInputBytes`, or nests
 * deeper than `maxDepth`, or a delimiter is empty.
 */
export function parseTemplate(text: string, options: TemplateOptions = {}): Template {
  const name = options.name ?? 'template';
  const limits = { ...DEFAULT_TEMPLATE_LIMITS, ...options.limits };
  const size = Buffer.byteLength(text, 'utf8');
  if (size > limits.maxInputBytes) throw new TemplateError(`template: ${name}: template is ${size} bytes: at most ${limits.maxInputBytes} are allowed`, 0);
  const left = options.leftDelim || '{{';
  const right = options.rightDelim || '}}';
  const funcs = options.funcs ?? {};
  const trees = parseTrees({
    name,
    text,
    delims: { left, right },
    funcs: new Set([...Object.keys(BUILTINS), ...Object.keys(funcs)]),
    maxDepth: limits.maxDepth,
  });
  return new Template(text, trees, { name, funcs, missingKey: options.missingKey ?? 'default', limits });
}
