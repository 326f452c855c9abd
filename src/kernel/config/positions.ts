/**
 * Line numbers for config files. `js-hcl-parser` (behind `parseHcl`) and `JSON.parse`
 * return values without positions, so this file scans the same text once more into a
 * tree of positions only (keys, labels, the line each item starts on) and answers
 * "which line holds this value?" for a path through the parsed value.
 *
 * The scanner is tolerant: it never throws and never decides whether the text is valid
 * (the real parser does). It knows HCL1's lexical forms (`#`, `//`, `/* *\/` comments,
 * quoted strings with escapes and `${…}`, heredocs `<<EOF` / `<<-EOF`, one-line blocks
 * with commas) and JSON (a JSON document is an HCL value with `:` for `=`).
 *
 * @module
 */

/** A value's position: an object (block body or `{…}` value), a list, or a scalar. */
export type PosNode =
  | { readonly kind: 'object'; readonly line: number; readonly entries: readonly PosEntry[] }
  | { readonly kind: 'list'; readonly line: number; readonly items: readonly PosNode[] }
  | { readonly kind: 'scalar'; readonly line: number };

/** One item of an object: `key = value`, `key { … }` or `key "label" … { … }`, in source order. */
interface PosEntry {
  readonly key: string;
  /** Block labels (`listener "tcp"` → `["tcp"]`); empty for attributes and JSON members. */
  readonly labels: readonly string[];
  /** 1-based line of the key token. */
  readonly line: number;
  readonly value: PosNode;
}

interface Token {
  readonly type: 'word' | 'string' | 'punct';
  readonly text: string;
  readonly line: number;
}

/** Splits `text` into tokens; comments and heredoc bodies are skipped, strings kept whole. */
function tokenize(text: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  let line = 1;
  const n = text.length;
  const advanceTo = (end: number) => {
    for (; i < end && i < n; i++) if (text[i] === '\n') line++;
  };
  while (i < n) {
    const c = text[i];
    if (c === '\n' || c === ' ' || c === '\t' || c === '\r') {
      advanceTo(i + 1);
    } else if (c === '#' || (c === '/' && text[i + 1] === '/')) {
      const eol = text.indexOf('\n', i);
      advanceTo(eol === -1 ? n : eol);
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      advanceTo(end === -1 ? n : end + 2);
    } else if (c === '"') {
      const start = i;
      const startLine = line;
      advanceTo(stringEnd(text, i));
      out.push({ type: 'string', text: text.slice(start, i), line: startLine });
    } else if (c === '<' && text[i + 1] === '<') {
      const m = /^<<-?([A-Za-z_][A-Za-z0-9_]*)[ \t]*\r?\n/.exec(text.slice(i, i + 200));
      const startLine = line;
      if (!m) {
        advanceTo(i + 2);
        continue;
      }
      advanceTo(i + m[0].length);
      // The body ends at a line holding only the anchor (indented for `<<-`).
      while (i < n) {
        const eol = text.indexOf('\n', i);
        const row = text.slice(i, eol === -1 ? n : eol);
        advanceTo(eol === -1 ? n : eol + 1);
        if (row.trim() === m[1]) break;
      }
      out.push({ type: 'string', text: '""', line: startLine });
    } else if ('{}[]=:,'.includes(c)) {
      out.push({ type: 'punct', text: c, line });
      advanceTo(i + 1);
    } else {
      const m = /^[^\s{}[\]=:,"#]+/.exec(text.slice(i, i + 1000));
      const word = m ? m[0] : c;
      out.push({ type: 'word', text: word, line });
      advanceTo(i + word.length);
    }
  }
  return out;
}

/** Index just past the string starting at `start` (a `"`), skipping escapes and `${…}`. */
function stringEnd(text: string, start: number): number {
  let i = start + 1;
  while (i < text.length) {
    const c = text[i];
    if (c === '\\') i += 2;
    else if (c === '"') return i + 1;
    else if (c === '$' && text[i + 1] === '{') {
      let depth = 1;
      i += 2;
      while (i < text.length && depth > 0) {
        if (text[i] === '"') i = stringEnd(text, i);
        else {
          if (text[i] === '{') depth++;
          else if (text[i] === '}') depth--;
          i++;
        }
      }
    } else i++;
  }
  return i;
}

/** The text of a key or label token: strings unquoted (JSON escapes), words as written. */
function keyText(t: Token): string {
  if (t.type !== 'string') return t.text;
  try {
    return JSON.parse(t.text) as string;
  } catch {
    return t.text.slice(1, -1);
  }
}

class Scanner {
  private i = 0;
  constructor(private readonly toks: readonly Token[]) {}

  private peek(): Token | undefined {
    return this.toks[this.i];
  }

  private lastLine(): number {
    return this.toks[this.i - 1]?.line ?? this.toks[this.toks.length - 1]?.line ?? 1;
  }

  /** Items until `}` (consumed) or the end. */
  body(line: number): PosNode {
    const entries: PosEntry[] = [];
    for (let t = this.peek(); t !== undefined; t = this.peek()) {
      if (t.type === 'punct' && t.text === '}') {
        this.i++;
        break;
      }
      if (t.type === 'punct' && t.text !== '{') {
        this.i++; // stray `,` `=` `]`…: tolerate
        continue;
      }
      if (t.type === 'punct') {
        this.i++;
        this.body(t.line); // a block with no key: skip it
        continue;
      }
      const keys: Token[] = [];
      for (let k = this.peek(); k && k.type !== 'punct'; k = this.peek()) {
        keys.push(k);
        this.i++;
      }
      const next = this.peek();
      let value: PosNode;
      if (next?.text === '=' || next?.text === ':') {
        this.i++;
        value = this.value();
      } else if (next?.text === '{') {
        this.i++;
        value = this.body(next.line);
      } else {
        value = { kind: 'scalar', line: keys[0].line };
      }
      entries.push({ key: keyText(keys[0]), labels: keys.slice(1).map(keyText), line: keys[0].line, value });
    }
    return { kind: 'object', line, entries };
  }

  /** One value: `{…}`, `[…]` or a scalar (string, heredoc, number, word). */
  value(): PosNode {
    const t = this.peek();
    if (t === undefined) return { kind: 'scalar', line: this.lastLine() };
    this.i++;
    if (t.text === '{' && t.type === 'punct') return this.body(t.line);
    if (t.text === '[' && t.type === 'punct') {
      const items: PosNode[] = [];
      for (let n = this.peek(); n !== undefined; n = this.peek()) {
        if (n.type === 'punct' && (n.text === ']' || n.text === '}')) {
          if (n.text === ']') this.i++;
          break;
        }
        if (n.type === 'punct' && n.text === ',') {
          this.i++;
          continue;
        }
        items.push(this.value());
      }
      return { kind: 'list', line: t.line, items };
    }
    return { kind: 'scalar', line: t.line };
  }
}

/**
 * Scans `text` into a position tree. HCL: the whole file is one object (the top-level
 * body). JSON (`format` `'json'`): the document's top-level value.
 */
export function scanPositions(text: string, format: 'hcl' | 'json'): PosNode {
  const scanner = new Scanner(tokenize(text));
  return format === 'json' ? scanner.value() : scanner.body(1);
}

/** A step of a path through a parsed value: an object key or a list index. */
export type PathStep = string | number;

/**
 * The line that holds the value at `path` in the parsed config, or the line of the
 * deepest part of the path that could be matched (1 when none).
 *
 * HCL: `js-hcl-parser` wraps every block and object value in a list (`listener "tcp" {…}`
 * → `listener: [{tcp: [{…}]}]`, one element per occurrence, in source order), so the
 * i-th index after a key selects the i-th occurrence of that key, and label steps walk
 * the entry's labels; a repeated attribute keeps its last occurrence (HCL1 semantics).
 * JSON: the tree mirrors the value one to one (the last duplicate key wins, as in
 * `JSON.parse`).
 */
export function lineAt(root: PosNode, path: readonly PathStep[], format: 'hcl' | 'json'): number {
  let node: PosNode = root;
  let line = root.kind === 'object' && root.entries.length === 0 ? 1 : root.line;
  let pending: { entry: PosEntry; next: number } | undefined;
  for (let s = 0; s < path.length; s++) {
    const step = path[s];
    if (pending) {
      // Walking a labelled HCL block: `label`, then the list index 0 after it.
      if (typeof step === 'number') continue;
      if (pending.entry.labels[pending.next] !== step) return line;
      pending.next++;
      if (pending.next === pending.entry.labels.length) {
        node = pending.entry.value;
        pending = undefined;
        if (typeof path[s + 1] === 'number') s++;
      }
      continue;
    }
    if (typeof step === 'number') {
      if (node.kind !== 'list' || node.items[step] === undefined) return line;
      node = node.items[step];
      line = node.line;
      continue;
    }
    if (node.kind !== 'object') return line;
    const all = node.entries.filter((e) => e.key === step);
    if (all.length === 0) return line;
    const index = path[s + 1];
    const blocks = all.filter((e) => e.labels.length > 0 || e.value.kind === 'object');
    if (format === 'hcl' && typeof index === 'number' && blocks.length > 0) {
      const entry = blocks[index];
      if (entry === undefined) return line;
      s++;
      line = entry.line;
      if (entry.labels.length > 0) pending = { entry, next: 0 };
      else node = entry.value;
      continue;
    }
    const entry = all[all.length - 1];
    line = entry.line;
    node = entry.value;
  }
  return line;
}
