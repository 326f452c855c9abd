/**
 * The parser of Go's `text/template` (Go's `text/template/parse/parse.go`, restated): items
 * from lex.ts become one tree per template, the main one and each `{{define}}` /
 * `{{block}}`. As Go it checks at parse time that every function exists, every variable is
 * declared, `{{break}}`/`{{continue}}` stand inside a `{{range}}`, and no template is
 * defined twice; errors are Go's texts (`template: t:3: function "nope" not defined`).
 *
 * Bounded: control structures and parentheses nest at most `maxDepth` deep, so a hostile
 * template cannot exhaust the stack.
 *
 * @module
 */
import { TemplateError } from './errors.js';
import { lex, type Delims, type Item, type ItemType } from './lex.js';
import {
  nodeString,
  type ArgNode,
  type BranchNode,
  type CommandNode,
  type ListNode,
  type LiteralNode,
  type Node,
  type PipeNode,
  type TemplateNode,
  type VariableNode,
} from './nodes.js';
import { unquoteGo } from './quote.js';

/** What the parser needs besides the text. */
export interface ParseInput {
  /** The template's name, used in errors and as the main tree's name. */
  readonly name: string;
  readonly text: string;
  readonly delims: Delims;
  /** Names of the functions a template may call (builtins and the caller's). */
  readonly funcs: ReadonlySet<string>;
  /** Deepest nesting of control structures and parentheses. */
  readonly maxDepth: number;
}

/** Sentinel nodes of `{{end}}` and `{{else}}`, which end a list. */
interface Stop {
  readonly type: 'end' | 'else';
  readonly pos: number;
}

/** Go's `item.String()`: how an item is named in `unexpected …` errors. */
function itemString(i: Item): string {
  if (i.type === 'eof') return 'EOF';
  if (i.type === 'error') return i.val;
  if (['block', 'break', 'continue', 'define', 'else', 'end', 'if', 'range', 'template', 'with', 'nil'].includes(i.type)) return `<${i.val}>`;
  if (i.val.length > 10) return `${JSON.stringify(i.val.slice(0, 10))}...`;
  return JSON.stringify(i.val);
}

const OPERAND_START: ReadonlySet<ItemType> = new Set([
  'bool',
  'charConstant',
  'dot',
  'field',
  'identifier',
  'number',
  'nil',
  'rawString',
  'string',
  'variable',
  'leftParen',
]);

/** Parses a template set (module doc). @throws TemplateError with Go's text. */
export function parseTrees(input: ParseInput): Map<string, ListNode> {
  const items = lex(input.text, input.delims);
  const trees = new Map<string, ListNode>();
  let i = 0;
  let vars: string[] = ['$'];
  let rangeDepth = 0;
  let depth = 0;
  let actionLine = 0;

  const fail = (line: number, message: string): never => {
    throw new TemplateError(`template: ${input.name}:${line}: ${message}`, line);
  };
  const next = (): Item => items[Math.min(i++, items.length - 1)]!;
  const peek = (): Item => items[Math.min(i, items.length - 1)]!;
  const backup = (n = 1): void => {
    i -= n;
  };
  const nextNonSpace = (): Item => {
    let t = next();
    while (t.type === 'space') t = next();
    return t;
  };
  const peekNonSpace = (): Item => {
    const t = nextNonSpace();
    backup();
    return t;
  };
  const unexpected = (t: Item, context: string): never => {
    if (t.type === 'error') {
      let extra = actionLine !== 0 && actionLine !== t.line ? ` in action started at ${input.name}:${actionLine}` : '';
      // As Go: no "unclosed action in action started at …".
      if (extra && t.val.endsWith(' action')) extra = extra.slice(' in action'.length);
      return fail(t.line, `${t.val}${extra}`);
    }
    return fail(t.line, `unexpected ${itemString(t)} in ${context}`);
  };
  const expect = (type: ItemType, context: string): Item => {
    const t = nextNonSpace();
    if (t.type !== type) unexpected(t, context);
    return t;
  };
  const deeper = <T>(line: number, f: () => T): T => {
    if (++depth > input.maxDepth) fail(line, `template nests too deep: more than ${input.maxDepth} levels`);
    try {
      return f();
    } finally {
      depth--;
    }
  };
  const lineAt = (pos: number): number => {
    let line = 1;
    for (let p = input.text.indexOf('\n'); p >= 0 && p < pos; p = input.text.indexOf('\n', p + 1)) line++;
    return line;
  };

  const addTree = (name: string, list: ListNode, line: number): void => {
    const prev = trees.get(name);
    if (prev && !isEmpty(prev) && !isEmpty(list)) fail(line, `template: multiple definition of template ${JSON.stringify(name)}`);
    if (!prev || isEmpty(prev)) trees.set(name, list);
  };

  /** Statements up to `{{end}}` or `{{else}}`. @throws `unexpected EOF`. */
  const itemList = (): { list: ListNode; stop: Stop } => {
    const nodes: Node[] = [];
    const pos = peekNonSpace().pos;
    while (peekNonSpace().type !== 'eof') {
      const n = textOrAction();
      if (n.type === 'end' || n.type === 'else') return { list: { type: 'list', pos, nodes }, stop: n as Stop };
      nodes.push(n as Node);
    }
    return fail(peek().line, 'unexpected EOF');
  };

  const textOrAction = (): Node | Stop => {
    const t = nextNonSpace();
    if (t.type === 'text') return { type: 'text', pos: t.pos, text: t.val };
    if (t.type === 'leftDelim') {
      actionLine = t.line;
      try {
        return action();
      } finally {
        actionLine = 0;
      }
    }
    return unexpected(t, 'input');
  };

  const action = (): Node | Stop => {
    const t = nextNonSpace();
    switch (t.type) {
      case 'block':
        return blockControl();
      case 'break':
      case 'continue': {
        const close = nextNonSpace();
        if (close.type !== 'rightDelim') unexpected(close, `{{${t.type}}}`);
        if (rangeDepth === 0) fail(t.line, `{{${t.type}}} outside {{range}}`);
        return { type: t.type, pos: t.pos };
      }
      case 'else': {
        const p = peekNonSpace();
        // `{{else if …}}` / `{{else with …}}`: the `if`/`with` is left for the branch to take.
        if (p.type === 'if' || p.type === 'with') return { type: 'else', pos: p.pos };
        return { type: 'else', pos: expect('rightDelim', 'else').pos };
      }
      case 'end':
        return { type: 'end', pos: expect('rightDelim', 'end').pos };
      case 'if':
      case 'range':
      case 'with':
        return branch(t.type, t);
      case 'template':
        return templateControl();
      default:
        break;
    }
    backup();
    const p = peek();
    // Variables declared here live until the enclosing `{{end}}`.
    return { type: 'action', pos: p.pos, pipe: pipeline('command', 'rightDelim') };
  };

  const pipeline = (context: string, end: ItemType): PipeNode => {
    const start = peekNonSpace();
    const decl: VariableNode[] = [];
    let isAssign = false;
    for (;;) {
      const v = peekNonSpace();
      if (v.type !== 'variable') break;
      nextNonSpace();
      const after = peek();
      const n = peekNonSpace();
      if (n.type === 'assign' || n.type === 'declare') {
        isAssign = n.type === 'assign';
        nextNonSpace();
        decl.push({ type: 'variable', pos: v.pos, ident: [v.val] });
        vars.push(v.val);
        break;
      }
      if (n.type === 'char' && n.val === ',') {
        nextNonSpace();
        decl.push({ type: 'variable', pos: v.pos, ident: [v.val] });
        vars.push(v.val);
        if (context === 'range' && decl.length < 2) {
          const p = peekNonSpace().type;
          if (p === 'variable' || p === 'rightDelim' || p === 'rightParen') continue;
          fail(v.line, 'range can only initialize variables');
        }
        fail(v.line, `too many declarations in ${context}`);
      }
      // `$x foo`: an operand, not a declaration.
      backup(after.type === 'space' ? 2 : 1);
      break;
    }
    const cmds: CommandNode[] = [];
    for (;;) {
      const t = nextNonSpace();
      if (t.type === end) {
        if (cmds.length === 0) fail(t.line, `missing value for ${context}`);
        for (const [k, c] of cmds.slice(1).entries()) {
          if (['bool', 'dot', 'nil', 'number', 'string'].includes(c.args[0]!.type)) fail(t.line, `non executable command in pipeline stage ${k + 2}`);
        }
        return { type: 'pipe', pos: start.pos, isAssign, decl, cmds };
      }
      if (!OPERAND_START.has(t.type)) unexpected(t, context);
      backup();
      cmds.push(command());
    }
  };

  const command = (): CommandNode => {
    const pos = peekNonSpace().pos;
    const args: ArgNode[] = [];
    for (;;) {
      peekNonSpace();
      const op = operand();
      if (op) args.push(op);
      const t = next();
      if (t.type === 'space') continue;
      if (t.type === 'rightDelim' || t.type === 'rightParen') backup();
      else if (t.type !== 'pipe') unexpected(t, 'operand');
      break;
    }
    if (args.length === 0) fail(peek().line, 'empty command');
    return { type: 'command', pos, args };
  };

  const operand = (): ArgNode | null => {
    const node = term();
    if (!node || peek().type !== 'field') return node;
    const fields: string[] = [];
    while (peek().type === 'field') fields.push(next().val.slice(1));
    switch (node.type) {
      case 'field':
        return { type: 'field', pos: node.pos, ident: [...node.ident, ...fields] };
      case 'variable':
        return { type: 'variable', pos: node.pos, ident: [...node.ident, ...fields] };
      case 'bool':
      case 'string':
      case 'number':
      case 'nil':
      case 'dot':
        return fail(lineAt(node.pos), `unexpected . after term ${JSON.stringify(nodeString(node))}`);
      default:
        return { type: 'chain', pos: node.pos, node, field: fields };
    }
  };

  const term = (): ArgNode | null => {
    const t = nextNonSpace();
    switch (t.type) {
      case 'identifier':
        if (!input.funcs.has(t.val)) fail(t.line, `function ${JSON.stringify(t.val)} not defined`);
        return { type: 'identifier', pos: t.pos, name: t.val };
      case 'dot':
        return { type: 'dot', pos: t.pos };
      case 'nil':
        return { type: 'nil', pos: t.pos };
      case 'variable': {
        const [name, ...fields] = t.val.split('.');
        if (!vars.includes(name!)) fail(t.line, `undefined variable ${JSON.stringify(name)}`);
        return { type: 'variable', pos: t.pos, ident: [name!, ...fields] };
      }
      case 'field':
        return { type: 'field', pos: t.pos, ident: t.val.slice(1).split('.') };
      case 'bool':
        return { type: 'bool', pos: t.pos, value: t.val === 'true', text: t.val };
      case 'number':
      case 'charConstant':
        return numberNode(t);
      case 'leftParen':
        return deeper(t.line, () => pipeline('parenthesized pipeline', 'rightParen'));
      case 'string':
      case 'rawString': {
        const s = unquoteGo(t.val);
        if (s === undefined) return fail(t.line, 'invalid syntax');
        return { type: 'string', pos: t.pos, value: s, text: t.val };
      }
      default:
        backup();
        return null;
    }
  };

  const numberNode = (t: Item): LiteralNode => {
    if (t.type === 'charConstant') {
      const s = unquoteGo(t.val);
      if (s === undefined || [...s].length !== 1) return fail(t.line, `malformed character constant: ${t.val}`);
      return { type: 'number', pos: t.pos, value: s.codePointAt(0)!, text: t.val };
    }
    const n = parseGoNumber(t.val);
    if (n === undefined) return fail(t.line, `illegal number syntax: ${JSON.stringify(t.val)}`);
    return { type: 'number', pos: t.pos, value: n.value, text: t.val, isFloat: n.isFloat };
  };

  const branch = (type: 'if' | 'range' | 'with', t: Item): BranchNode =>
    deeper(t.line, () => {
      const mark = vars.length;
      try {
        const pipe = pipeline(type, 'rightDelim');
        if (type === 'range') rangeDepth++;
        const body = itemList();
        if (type === 'range') rangeDepth--;
        let elseList: ListNode | null = null;
        if (body.stop.type === 'else') {
          const p = peek();
          if ((type === 'if' && p.type === 'if') || (type === 'with' && p.type === 'with')) {
            // `{{else if b}}…{{end}}` is `{{else}}{{if b}}…{{end}}{{end}}`.
            const inner = next();
            elseList = { type: 'list', pos: body.stop.pos, nodes: [branch(type, inner)] };
          } else {
            const rest = itemList();
            if (rest.stop.type !== 'end') fail(lineAt(rest.stop.pos), `expected end; found {{else}}`);
            elseList = rest.list;
          }
        }
        return { type, pos: pipe.pos, pipe, list: body.list, elseList };
      } finally {
        vars = vars.slice(0, mark);
      }
    });

  const templateName = (t: Item, context: string): string => {
    if (t.type !== 'string' && t.type !== 'rawString') return unexpected(t, context);
    const s = unquoteGo(t.val);
    return s ?? fail(t.line, 'invalid syntax');
  };

  const templateControl = (): TemplateNode => {
    const t = nextNonSpace();
    const name = templateName(t, 'template clause');
    let pipe: PipeNode | null = null;
    if (nextNonSpace().type !== 'rightDelim') {
      backup();
      pipe = pipeline('template clause', 'rightDelim');
    }
    return { type: 'template', pos: t.pos, name, pipe };
  };

  /** A definition's body, parsed with its own variables (`$` only) and range depth. */
  const definition = <T>(f: () => T): T => {
    const saved = { vars, rangeDepth };
    vars = ['$'];
    rangeDepth = 0;
    try {
      return f();
    } finally {
      ({ vars, rangeDepth } = saved);
    }
  };

  const blockControl = (): TemplateNode => {
    const t = nextNonSpace();
    const name = templateName(t, 'block clause');
    const pipe = pipeline('block clause', 'rightDelim');
    deeper(t.line, () =>
      definition(() => {
        const { list, stop } = itemList();
        if (stop.type !== 'end') fail(lineAt(stop.pos), 'unexpected {{else}} in block clause');
        addTree(name, list, t.line);
      }),
    );
    return { type: 'template', pos: t.pos, name, pipe };
  };

  const parseDefinition = (): void => {
    const t = nextNonSpace();
    if (t.type !== 'string' && t.type !== 'rawString') unexpected(t, 'define clause');
    const name = unquoteGo(t.val) ?? fail(t.line, 'invalid syntax');
    expect('rightDelim', 'define clause');
    definition(() => {
      const { list, stop } = itemList();
      if (stop.type !== 'end') fail(lineAt(stop.pos), 'unexpected {{else}} in define clause');
      addTree(name, list, t.line);
    });
  };

  const root: Node[] = [];
  while (peek().type !== 'eof') {
    if (peek().type === 'leftDelim') {
      const at = i;
      const d = next();
      if (nextNonSpace().type === 'define') {
        actionLine = d.line;
        parseDefinition();
        actionLine = 0;
        continue;
      }
      i = at;
    }
    const n = textOrAction();
    if (n.type === 'end' || n.type === 'else') fail(lineAt(n.pos), `unexpected {{${n.type}}}`);
    root.push(n as Node);
  }
  addTree(input.name, { type: 'list', pos: 0, nodes: root }, 1);
  return trees;
}

/** Go's `IsEmptyTree`: only white space text. */
function isEmpty(list: ListNode): boolean {
  return list.nodes.every((n) => n.type === 'text' && n.text.trim() === '');
}

/** A Go number literal (ints in decimal, hex, octal, binary, with `_`; decimal floats). */
function parseGoNumber(text: string): { value: number; isFloat: boolean } | undefined {
  if (text.endsWith('i')) return undefined;
  const sign = text.startsWith('-') ? -1 : 1;
  const body = text.replace(/^[+-]/, '');
  if (body.includes('__') || body.startsWith('_') || body.endsWith('_')) return undefined;
  const clean = body.replace(/_/g, '');
  let value: number;
  let isFloat = false;
  if (/^0[xX][0-9a-fA-F]+$/.test(clean)) value = parseInt(clean.slice(2), 16);
  else if (/^0[oO][0-7]+$/.test(clean)) value = parseInt(clean.slice(2), 8);
  else if (/^0[bB][01]+$/.test(clean)) value = parseInt(clean.slice(2), 2);
  else if (/^0[0-7]+$/.test(clean)) value = parseInt(clean.slice(1), 8);
  else if (/^\d+$/.test(clean)) value = Number(clean);
  else if (/^(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(clean)) {
    value = Number(clean);
    isFloat = true;
  } else return undefined;
  if (!Number.isFinite(value) || (!isFloat && !Number.isSafeInteger(value))) return undefined;
  return { value: sign * value, isFloat };
}
