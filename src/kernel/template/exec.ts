/**
 * The executor of Go's `text/template` (Go's `text/template/exec.go`, restated): walks a
 * parsed tree over data (values.ts says how JavaScript values read as Go values) and
 * returns the text. Go's rules: `range` over maps in key order and over an int (`range 5`),
 * `$` the data, variables scoped to their control structure, a pipeline's value passed as
 * the last argument of the next command, `and`/`or` evaluated lazily, missing map keys
 * printing `<no value>` (or an error with `missingKey: 'error'`), and errors as
 * `template: t:3:5: executing "t" at <.A.B>: nil pointer evaluating interface {}.B`.
 *
 * Bounded (index.ts `TemplateLimits`): every node walked, command run, field read and range
 * iteration is a step, and strings made by functions count a step per 256 bytes, so a
 * template stops with an error after `maxSteps`; the output stops at `maxOutputBytes`;
 * `{{template}}` calls nest at most `maxDepth` deep.
 *
 * @module
 */
import type { FuncMap, TemplateFunc } from './builtins.js';
import { lineCol, TemplateError } from './errors.js';
import {
  nodeString,
  type ArgNode,
  type BranchNode,
  type ChainNode,
  type CommandNode,
  type FieldNode,
  type ListNode,
  type Node,
  type PipeNode,
  type VariableNode,
} from './nodes.js';
import { formatValue, isMap, isStruct, mapGet, sortedEntries, structMember, truth, typeName, type Value } from './values.js';

/** What a missing map key gives: Go's `missingkey=default` (`<no value>`), `zero` (`<nil>`) or `error`. */
export type MissingKey = 'default' | 'zero' | 'error';

/** An execution's inputs besides the data. */
export interface ExecInput {
  /** The name of the parsed text (errors' location) and of the template to run. */
  readonly name: string;
  readonly text: string;
  readonly trees: ReadonlyMap<string, ListNode>;
  /** The builtins and the caller's functions. */
  readonly funcs: FuncMap;
  readonly missingKey: MissingKey;
  readonly maxSteps: number;
  readonly maxOutputBytes: number;
  readonly maxDepth: number;
}

/** No final argument (Go's `missingVal`), unlike `undefined`, an invalid value. */
const MISSING = Symbol('missing');
const BREAK = Symbol('break');
const CONTINUE = Symbol('continue');

/** The operands of a command whose first word is being evaluated. */
interface Call {
  readonly dot: Value;
  /** The command's words, the first included; empty when evaluated as an argument. */
  readonly args: readonly ArgNode[];
  /** The command (or the identifier evaluated as an argument): where a function's error is reported, as Go. */
  readonly cmd?: CommandNode | ArgNode;
  readonly final: Value;
}

class State {
  private readonly out: string[] = [];
  private outBytes = 0;
  private steps = 0;
  private vars: { name: string; value: Value }[] = [];
  private node: ArgNode | CommandNode | Node | null = null;
  private tmplName: string;
  private depth = 0;

  constructor(private readonly input: ExecInput) {
    this.tmplName = input.name;
  }

  run(data: Value): string {
    const root = this.input.trees.get(this.input.name);
    if (!root) this.errorf(`${JSON.stringify(this.input.name)} is an incomplete or empty template`);
    this.vars = [{ name: '$', value: data }];
    this.walkList(data, root!);
    return this.out.join('');
  }

  private errorf(message: string): never {
    if (!this.node) throw new TemplateError(`template: ${this.tmplName}: ${message}`, 0);
    const { line, col } = lineCol(this.input.text, this.node.pos);
    let context = nodeString(this.node);
    if (context.length > 20) context = `${context.slice(0, 20)}...`;
    throw new TemplateError(`template: ${this.input.name}:${line}:${col}: executing ${JSON.stringify(this.tmplName)} at <${context}>: ${message}`, line);
  }

  private at(node: ArgNode | CommandNode | Node): void {
    this.node = node;
  }

  private step(n = 1): void {
    this.steps += n;
    if (this.steps > this.input.maxSteps) this.errorf(`template execution exceeds ${this.input.maxSteps} steps`);
  }

  private write(s: string): void {
    this.outBytes += Buffer.byteLength(s, 'utf8');
    if (this.outBytes > this.input.maxOutputBytes) this.errorf(`template output exceeds ${this.input.maxOutputBytes} bytes`);
    this.out.push(s);
  }

  private walkList(dot: Value, list: ListNode): void {
    for (const n of list.nodes) this.walk(dot, n);
  }

  private walk(dot: Value, node: Node): void {
    this.at(node);
    this.step();
    switch (node.type) {
      case 'text':
        this.write(node.text);
        return;
      case 'action': {
        const val = this.evalPipeline(dot, node.pipe);
        if (node.pipe.decl.length === 0) this.printValue(node, val);
        return;
      }
      case 'if':
      case 'with':
        this.walkIfOrWith(dot, node);
        return;
      case 'range':
        this.walkRange(dot, node);
        return;
      case 'template':
        this.walkTemplate(dot, node);
        return;
      case 'break':
        throw BREAK;
      case 'continue':
        throw CONTINUE;
    }
  }

  private printValue(node: Node, v: Value): void {
    this.at(node);
    if (typeof v === 'function') this.errorf(`can't print ${nodeString(node)} of type ${typeName(v)}`);
    this.write(formatValue(v));
  }

  private walkIfOrWith(dot: Value, node: BranchNode): void {
    const mark = this.vars.length;
    try {
      const val = this.evalPipeline(dot, node.pipe);
      if (truth(val)) this.walkList(node.type === 'with' ? val : dot, node.list);
      else if (node.elseList) this.walkList(dot, node.elseList);
    } finally {
      this.vars.length = mark;
    }
  }

  private walkRange(dot: Value, node: BranchNode): void {
    this.at(node);
    const outer = this.vars.length;
    try {
      const val = this.evalPipeline(dot, node.pipe);
      const mark = this.vars.length;
      const { decl, isAssign } = node.pipe;
      const one = (index: Value, elem: Value): boolean => {
        this.step();
        if (decl.length > 0) {
          if (isAssign) this.setVar(decl[0]!.ident[0]!, decl.length > 1 ? index : elem);
          else this.vars[this.vars.length - 1]!.value = elem;
        }
        if (decl.length > 1) {
          if (isAssign) this.setVar(decl[1]!.ident[0]!, elem);
          else this.vars[this.vars.length - 2]!.value = index;
        }
        try {
          this.walkList(elem, node.list);
        } catch (e) {
          if (e === BREAK) return false;
          if (e !== CONTINUE) throw e;
        } finally {
          this.vars.length = mark;
        }
        return true;
      };
      let ran = false;
      if (Array.isArray(val)) {
        for (const [i, x] of val.entries()) {
          ran = true;
          if (!one(i, x)) break;
        }
      } else if (isMap(val)) {
        for (const [k, x] of sortedEntries(val)) {
          ran = true;
          if (!one(k, x)) break;
        }
      } else if (typeof val === 'number' && Number.isInteger(val)) {
        if (decl.length > 1) this.errorf(`can't use ${val} to iterate over more than one variable`);
        for (let i = 0; i < val; i++) {
          ran = true;
          if (!one(i, i)) break;
        }
      } else if (val !== undefined && val !== null) {
        this.at(node);
        this.errorf(`range can't iterate over ${formatValue(val)}`);
      }
      if (!ran && node.elseList) this.walkList(dot, node.elseList);
    } finally {
      this.vars.length = outer;
    }
  }

  private walkTemplate(dot: Value, node: Node & { type: 'template' }): void {
    const tree = this.input.trees.get(node.name);
    if (!tree) this.errorf(`template ${JSON.stringify(node.name)} not defined`);
    if (this.depth >= this.input.maxDepth) this.errorf(`exceeded maximum template depth (${this.input.maxDepth})`);
    const newDot = node.pipe ? this.evalPipeline(dot, node.pipe) : undefined;
    const saved = { vars: this.vars, name: this.tmplName };
    this.vars = [{ name: '$', value: newDot }];
    this.tmplName = node.name;
    this.depth++;
    try {
      this.walkList(newDot, tree!);
    } finally {
      this.depth--;
      this.vars = saved.vars;
      this.tmplName = saved.name;
    }
  }

  private setVar(name: string, value: Value): void {
    for (let i = this.vars.length - 1; i >= 0; i--) {
      if (this.vars[i]!.name === name) {
        this.vars[i]!.value = value;
        return;
      }
    }
    this.errorf(`undefined variable: ${name}`);
  }

  private varValue(name: string): Value {
    for (let i = this.vars.length - 1; i >= 0; i--) if (this.vars[i]!.name === name) return this.vars[i]!.value;
    return this.errorf(`undefined variable: ${name}`);
  }

  private evalPipeline(dot: Value, pipe: PipeNode): Value {
    this.at(pipe);
    let value: Value = MISSING;
    for (const cmd of pipe.cmds) value = this.evalCommand(dot, cmd, value);
    for (const v of pipe.decl) {
      if (pipe.isAssign) this.setVar(v.ident[0]!, value);
      else this.vars.push({ name: v.ident[0]!, value });
    }
    return value;
  }

  private notAFunction(args: readonly ArgNode[], final: Value): void {
    if (args.length > 1 || final !== MISSING) this.errorf(`can't give argument to non-function ${nodeString(args[0]!)}`);
  }

  private evalCommand(dot: Value, cmd: CommandNode, final: Value): Value {
    this.step();
    const first = cmd.args[0]!;
    const call: Call = { dot, args: cmd.args, final, cmd };
    switch (first.type) {
      case 'field':
        return this.evalFieldChain(dot, first, first.ident, call);
      case 'chain':
        return this.evalChain(first, call);
      case 'identifier':
        return this.evalFunction(first.name, first, call);
      case 'pipe':
        this.at(first);
        this.notAFunction(cmd.args, final);
        return this.evalPipeline(dot, first);
      case 'variable':
        return this.evalVariable(first, call);
      default:
        break;
    }
    this.at(first);
    this.notAFunction(cmd.args, final);
    switch (first.type) {
      case 'bool':
      case 'number':
      case 'string':
        return first.value;
      case 'dot':
        return dot;
      case 'nil':
        return this.errorf('nil is not a command');
    }
  }

  private evalVariable(node: VariableNode, call: Call): Value {
    this.at(node);
    const value = this.varValue(node.ident[0]!);
    if (node.ident.length === 1) {
      this.notAFunction(call.args.length > 0 ? call.args : [node], call.final);
      return value;
    }
    return this.evalFieldChain(value, node, node.ident.slice(1), call);
  }

  private evalChain(node: ChainNode, call: Call): Value {
    this.at(node);
    if (node.node.type === 'nil') this.errorf(`indirection through explicit nil in ${nodeString(node)}`);
    const receiver = this.evalArg(call.dot, node.node);
    return this.evalFieldChain(receiver, node, node.field, call);
  }

  /** Reads `ident` one field at a time from `receiver`; the last field gets the command's arguments. */
  private evalFieldChain(receiver: Value, node: FieldNode | VariableNode | ChainNode, ident: readonly string[], call: Call): Value {
    let r = receiver;
    const last = ident.length - 1;
    for (const [i, name] of ident.entries()) {
      r = this.evalField(r, name, node, i === last ? call : { dot: call.dot, args: [], final: MISSING });
    }
    return r;
  }

  private evalField(receiver: Value, name: string, node: ArgNode, call: Call): Value {
    this.at(node);
    this.step();
    if (receiver === undefined) {
      if (this.input.missingKey === 'error') this.errorf(`nil data; no entry for key ${JSON.stringify(name)}`);
      return undefined;
    }
    if (receiver === null) this.errorf(`nil pointer evaluating interface {}.${name}`);
    const hasArgs = call.args.length > 1 || call.final !== MISSING;
    if (isMap(receiver)) {
      if (hasArgs) this.errorf(`${name} is not a method but has arguments`);
      const v = mapGet(receiver, name);
      if (v !== undefined) return v;
      if (this.input.missingKey === 'error') this.errorf(`map has no entry for key ${JSON.stringify(name)}`);
      return this.input.missingKey === 'zero' ? null : undefined;
    }
    const member = isStruct(receiver) ? structMember(receiver, name) : undefined;
    if (member) {
      const v = member.value;
      if (typeof v === 'function') return this.callFunction(name, { fn: v.bind(receiver) as TemplateFunc['fn'], minArgs: 0, maxArgs: undefined }, call);
      if (hasArgs) this.errorf(`${name} is not a method but has arguments`);
      return v;
    }
    return this.errorf(`can't evaluate field ${name} in type ${typeName(receiver)}`);
  }

  private evalFunction(name: string, node: ArgNode, call: Call): Value {
    this.at(node);
    const fn = this.input.funcs[name];
    if (!fn) return this.errorf(`${JSON.stringify(name)} is not a defined function`);
    return this.callFunction(name, fn, call);
  }

  private callFunction(name: string, fn: TemplateFunc, call: Call): Value {
    const node = call.cmd ?? this.node!;
    const argNodes = call.args.slice(1);
    const n = argNodes.length + (call.final === MISSING ? 0 : 1);
    if (n < fn.minArgs || (fn.maxArgs !== undefined && n > fn.maxArgs)) {
      const want = fn.maxArgs === fn.minArgs ? `${fn.minArgs}` : n < fn.minArgs ? `at least ${fn.minArgs}` : `at most ${fn.maxArgs}`;
      this.errorf(`wrong number of args for ${name}: want ${want} got ${n}`);
    }
    if ((name === 'and' || name === 'or') && this.input.funcs[name] === fn) {
      let v: Value = undefined;
      for (const a of argNodes) {
        v = this.evalArg(call.dot, a);
        if (truth(v) === (name === 'or')) return v;
      }
      return call.final === MISSING ? v : call.final;
    }
    const values = argNodes.map((a) => this.evalArg(call.dot, a));
    if (call.final !== MISSING) values.push(call.final);
    let result: Value;
    try {
      // A missing value reaches a function as nil, as Go's zero `interface{}`.
      result = fn.fn(...values.map((v) => (v === undefined ? null : v)));
    } catch (err) {
      if (err instanceof TemplateError) throw err;
      this.at(node);
      return this.errorf(`error calling ${name}: ${err instanceof Error ? err.message : String(err)}`);
    }
    if (typeof result === 'string' && result.length > 256) {
      this.at(node);
      if (result.length > this.input.maxOutputBytes) this.errorf(`error calling ${name}: result exceeds ${this.input.maxOutputBytes} bytes`);
      this.step(result.length >> 8);
    }
    return result;
  }

  private evalArg(dot: Value, n: ArgNode): Value {
    this.at(n);
    const bare: Call = { dot, args: [], final: MISSING };
    switch (n.type) {
      case 'dot':
        return dot;
      case 'nil':
        return null;
      case 'field':
        return this.evalFieldChain(dot, n, n.ident, bare);
      case 'variable':
        return this.evalVariable(n, bare);
      case 'pipe':
        return this.evalPipeline(dot, n);
      case 'identifier':
        return this.evalFunction(n.name, n, { dot, args: [n], final: MISSING, cmd: n });
      case 'chain':
        return this.evalChain(n, bare);
      case 'bool':
      case 'number':
      case 'string':
        return n.value;
    }
  }
}

/** Runs template `input.name` over `data` (module doc). @throws TemplateError with Go's text. */
export function execute(input: ExecInput, data: Value): string {
  return new State(input).run(data);
}
