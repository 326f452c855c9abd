/**
 * The parse tree of a Go `text/template` (Go's `text/template/parse/node.go`, restated):
 * what parse.ts builds and exec.ts walks, and {@link nodeString}, the text Go prints for a
 * node in errors (`executing "t" at <.Foo.Bar>: …`).
 *
 * @module
 */

interface At {
  /** Offset in the template text (UTF-16 units). */
  readonly pos: number;
}

interface TextNode extends At {
  readonly type: 'text';
  readonly text: string;
}
/** A pipeline: optional `$x :=` / `$x =` declarations, then commands joined by `|`. */
export interface PipeNode extends At {
  readonly type: 'pipe';
  readonly isAssign: boolean;
  readonly decl: readonly VariableNode[];
  readonly cmds: readonly CommandNode[];
}
export interface CommandNode extends At {
  readonly type: 'command';
  readonly args: readonly ArgNode[];
}
interface ActionNode extends At {
  readonly type: 'action';
  readonly pipe: PipeNode;
}
/** `if`, `with` and `range`: a pipeline, a list and an optional `else` list. */
export interface BranchNode extends At {
  readonly type: 'if' | 'with' | 'range';
  readonly pipe: PipeNode;
  readonly list: ListNode;
  readonly elseList: ListNode | null;
}
export interface TemplateNode extends At {
  readonly type: 'template';
  readonly name: string;
  readonly pipe: PipeNode | null;
}
interface BreakNode extends At {
  readonly type: 'break' | 'continue';
}
export interface ListNode extends At {
  readonly type: 'list';
  readonly nodes: readonly Node[];
}
/** A statement of a list. */
export type Node = TextNode | ActionNode | BranchNode | TemplateNode | BreakNode;

export interface FieldNode extends At {
  readonly type: 'field';
  /** `.A.B` → `["A", "B"]`. */
  readonly ident: readonly string[];
}
export interface VariableNode extends At {
  readonly type: 'variable';
  /** `$x.A` → `["$x", "A"]`. */
  readonly ident: readonly string[];
}
interface IdentifierNode extends At {
  readonly type: 'identifier';
  readonly name: string;
}
/** A term followed by fields: `(pipeline).A.B`. */
export interface ChainNode extends At {
  readonly type: 'chain';
  readonly node: ArgNode;
  readonly field: readonly string[];
}
export interface LiteralNode extends At {
  readonly type: 'bool' | 'number' | 'string';
  readonly value: boolean | number | string;
  /** The literal as written. */
  readonly text: string;
  /** Numbers: whether Go reads it as a float (`1.5`, `1e3`). */
  readonly isFloat?: boolean;
}
interface DotNode extends At {
  readonly type: 'dot' | 'nil';
}
/** An operand of a command. */
export type ArgNode = FieldNode | VariableNode | IdentifierNode | ChainNode | LiteralNode | DotNode | PipeNode;

/** Go's `String()` of a node, as shown in errors. */
export function nodeString(n: ArgNode | CommandNode | Node | ListNode): string {
  switch (n.type) {
    case 'field':
      return n.ident.map((f) => `.${f}`).join('');
    case 'variable':
      return n.ident.join('.');
    case 'identifier':
      return n.name;
    case 'chain':
      return `${n.node.type === 'pipe' ? `(${nodeString(n.node)})` : nodeString(n.node)}${n.field.map((f) => `.${f}`).join('')}`;
    case 'bool':
    case 'number':
    case 'string':
      return n.text;
    case 'dot':
      return '.';
    case 'nil':
      return 'nil';
    case 'pipe': {
      const decl = n.decl.length > 0 ? `${n.decl.map(nodeString).join(', ')} ${n.isAssign ? '=' : ':='} ` : '';
      return decl + n.cmds.map(nodeString).join(' | ');
    }
    case 'command':
      return n.args.map((a) => (a.type === 'pipe' ? `(${nodeString(a)})` : nodeString(a))).join(' ');
    case 'text':
      return n.text;
    case 'action':
      return `{{${nodeString(n.pipe)}}}`;
    case 'if':
    case 'with':
    case 'range':
      return `{{${n.type} ${nodeString(n.pipe)}}}${nodeString(n.list)}${n.elseList ? `{{else}}${nodeString(n.elseList)}` : ''}{{end}}`;
    case 'template':
      return `{{template ${JSON.stringify(n.name)}${n.pipe ? ` ${nodeString(n.pipe)}` : ''}}}`;
    case 'break':
    case 'continue':
      return `{{${n.type}}}`;
    case 'list':
      return n.nodes.map(nodeString).join('');
  }
}
