/**
 * `username_template` of a database connection: the subset of Go's text/template the
 * reference's templates use (sdk/helper/template), evaluated against `.DisplayName` and
 * `.RoleName` (reference/secrets-engines.md §5: the PostgreSQL default
 * `{{ printf "v-%s-%s-%s-%s" (.DisplayName | truncate 8) (.RoleName | truncate 8) (random 20) (unix_time) | truncate 63 }}`).
 *
 * Actions `{{ … }}` hold a pipeline: commands separated by `|`, each a function with
 * arguments (strings, integers, fields, parenthesised pipelines) or a single operand; the
 * piped value is the last argument. Functions: `printf` (`%s`, `%d`, `%v`, `%%`),
 * `truncate N`, `random N` (alphanumeric), `unix_time`, `unix_time_millis`, `uppercase`,
 * `lowercase`, `replace OLD NEW`, `uuid`. Bounded: the template at most 2048 characters,
 * nesting at most 16 deep, `random` at most 128, the result at most 1024 characters.
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import { InputError } from '../../../kernel/util/duration.js';
import { randomBase62 } from '../../../kernel/util/base62.js';

/** The reference PostgreSQL plugin's default username template. */
export const DEFAULT_USERNAME_TEMPLATE =
  '{{ printf "v-%s-%s-%s-%s" (.DisplayName | truncate 8) (.RoleName | truncate 8) (random 20) (unix_time) | truncate 63 }}';

const MAX_TEMPLATE = 2048;
const MAX_DEPTH = 16;
const MAX_RANDOM = 128;
const MAX_OUTPUT = 1024;

/** What a template sees. */
export interface UsernameInput {
  readonly DisplayName: string;
  readonly RoleName: string;
  /** Time for `unix_time` (the request time). */
  readonly now: Date;
}

type Token = { kind: 'str' | 'num' | 'field' | 'ident'; text: string } | { kind: '(' | ')' | '|' };
type Node = { kind: 'lit'; value: string | number } | { kind: 'field'; name: string } | { kind: 'call'; fn: string; args: Node[] } | Pipeline;
interface Pipeline {
  kind: 'pipe';
  commands: Node[][];
}

const fail = (why: string) => new InputError(`username_template: ${why}`);

function tokenize(src: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i];
    if (/\s/.test(c)) i++;
    else if (c === '(' || c === ')' || c === '|') {
      out.push({ kind: c });
      i++;
    } else if (c === '"') {
      let j = i + 1;
      let s = '';
      while (j < src.length && src[j] !== '"') {
        if (src[j] === '\\' && j + 1 < src.length) {
          const e = src[++j];
          s += e === 'n' ? '\n' : e === 't' ? '\t' : e;
        } else s += src[j];
        j++;
      }
      if (j >= src.length) throw fail('unterminated string');
      out.push({ kind: 'str', text: s });
      i = j + 1;
    } else {
      const m = /^(\.[A-Za-z_][A-Za-z0-9_]*|-?\d+|[A-Za-z_][A-Za-z0-9_]*)/.exec(src.slice(i));
      if (!m) throw fail(`unexpected "${c}"`);
      const t = m[1];
      out.push({ kind: t.startsWith('.') ? 'field' : /^-?\d/.test(t) ? 'num' : 'ident', text: t });
      i += t.length;
    }
  }
  return out;
}

/** Parses one action's tokens into a pipeline. */
function parsePipeline(tokens: Token[], pos: { i: number }, depth: number): Pipeline {
  if (depth > MAX_DEPTH) throw fail('nested too deep');
  const commands: Node[][] = [[]];
  while (pos.i < tokens.length) {
    const t = tokens[pos.i];
    if (t.kind === ')') break;
    pos.i++;
    if (t.kind === '|') {
      if (commands[commands.length - 1].length === 0) throw fail('missing command before "|"');
      commands.push([]);
      continue;
    }
    const cmd = commands[commands.length - 1];
    if (t.kind === '(') {
      cmd.push(parsePipeline(tokens, pos, depth + 1));
      if (tokens[pos.i]?.kind !== ')') throw fail('missing ")"');
      pos.i++;
    } else if (t.kind === 'str') cmd.push({ kind: 'lit', value: t.text });
    else if (t.kind === 'num') cmd.push({ kind: 'lit', value: Number(t.text) });
    else if (t.kind === 'field') {
      if (t.text !== '.DisplayName' && t.text !== '.RoleName') throw fail(`unknown field ${t.text}`);
      cmd.push({ kind: 'field', name: t.text.slice(1) });
    } else if (t.kind === 'ident') {
      if (!Object.hasOwn(FUNCTIONS, t.text)) throw fail(`function "${t.text}" not defined`);
      cmd.push({ kind: 'call', fn: t.text, args: [] });
    }
  }
  if (commands[commands.length - 1].length === 0) throw fail('empty command');
  return { kind: 'pipe', commands };
}

const FUNCTIONS: Record<string, (args: (string | number)[], input: UsernameInput) => string | number> = {
  printf: (a) => {
    const [format, ...rest] = a;
    if (typeof format !== 'string') throw fail('printf: the format must be a string');
    let k = 0;
    return format.replace(/%[sdv%]/g, (spec) => (spec === '%%' ? '%' : k < rest.length ? String(rest[k++]) : '%!' + spec[1] + '(MISSING)'));
  },
  truncate: (a) => {
    const [n, s] = a;
    if (typeof n !== 'number' || n < 0) throw fail('truncate: the length must be a non-negative integer');
    return String(s ?? '').slice(0, n);
  },
  random: (a) => {
    const [n] = a;
    if (typeof n !== 'number' || n < 1 || n > MAX_RANDOM) throw fail(`random: the length must be 1 to ${MAX_RANDOM}`);
    return randomBase62(n);
  },
  unix_time: (_a, input) => Math.floor(input.now.getTime() / 1000),
  unix_time_millis: (_a, input) => input.now.getTime(),
  uppercase: (a) => String(a[0] ?? '').toUpperCase(),
  lowercase: (a) => String(a[0] ?? '').toLowerCase(),
  replace: (a) => String(a[2] ?? '').replaceAll(String(a[0] ?? ''), String(a[1] ?? '')),
  uuid: () => randomUUID(),
};

function evaluate(node: Node, input: UsernameInput, piped?: string | number): string | number {
  switch (node.kind) {
    case 'lit':
      return node.value;
    case 'field':
      return input[node.name as 'DisplayName' | 'RoleName'];
    case 'call': {
      return FUNCTIONS[node.fn](piped === undefined ? node.args.map((a) => evaluate(a, input)) : [...node.args.map((a) => evaluate(a, input)), piped], input);
    }
    case 'pipe': {
      let value: string | number | undefined;
      for (const cmd of node.commands) {
        const [head, ...args] = cmd;
        if (head.kind === 'call') value = evaluate({ kind: 'call', fn: head.fn, args }, input, value);
        else if (args.length === 0 && value === undefined) value = evaluate(head, input);
        else throw fail('only a function can take arguments');
      }
      return value ?? '';
    }
  }
}

/** Parses `template` into text parts and actions. Errors (400 naming `username_template`): malformed or too long. */
export function compileUsernameTemplate(template: string): (input: UsernameInput) => string {
  if (template.length > MAX_TEMPLATE) throw fail(`at most ${MAX_TEMPLATE} characters`);
  const parts: (string | Pipeline)[] = [];
  let rest = template;
  while (rest !== '') {
    const open = rest.indexOf('{{');
    if (open < 0) {
      parts.push(rest);
      break;
    }
    const close = rest.indexOf('}}', open);
    if (close < 0) throw fail('unclosed action');
    parts.push(rest.slice(0, open));
    const tokens = tokenize(rest.slice(open + 2, close).replace(/^-\s|\s-$/g, ''));
    const pos = { i: 0 };
    const pipe = parsePipeline(tokens, pos, 0);
    if (pos.i !== tokens.length) throw fail('unexpected ")"');
    parts.push(pipe);
    rest = rest.slice(close + 2);
  }
  return (input) => {
    const out = parts.map((p) => (typeof p === 'string' ? p : String(evaluate(p, input)))).join('');
    if (out.length > MAX_OUTPUT) throw fail(`the username is longer than ${MAX_OUTPUT} characters`);
    if (out === '') throw fail('the username is empty');
    return out;
  };
}
