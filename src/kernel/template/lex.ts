/**
 * The lexer of Go's `text/template` (Go's `text/template/parse/lex.go`, restated): the
 * template text becomes a list of items: text between actions, and inside an action its
 * words, literals, fields, variables and punctuation. Trim markers (`{{- ` and ` -}}`) drop
 * the white space beside the action; comments (`{{/* … *\/}}`) are dropped. The first
 * problem ends the list with an `error` item carrying Go's text (`unclosed action`,
 * `bad number syntax: "3x"`, `unterminated quoted string`).
 *
 * The caller bounds the input's size (index.ts); the list holds at most one item per byte.
 *
 * @module
 */

/** Item kinds, as Go's `itemType` (keywords each their own kind). */
export type ItemType =
  | 'text'
  | 'leftDelim'
  | 'rightDelim'
  | 'space'
  | 'identifier'
  | 'field'
  | 'variable'
  | 'string'
  | 'rawString'
  | 'charConstant'
  | 'number'
  | 'bool'
  | 'nil'
  | 'dot'
  | 'pipe'
  | 'declare'
  | 'assign'
  | 'leftParen'
  | 'rightParen'
  | 'char'
  | 'eof'
  | 'error'
  | 'block'
  | 'break'
  | 'continue'
  | 'define'
  | 'else'
  | 'end'
  | 'if'
  | 'range'
  | 'template'
  | 'with';

/** One lexed item; `pos` is its offset in the text (UTF-16 units; Go counts bytes), `line` 1-based. */
export interface Item {
  readonly type: ItemType;
  readonly val: string;
  readonly pos: number;
  readonly line: number;
}

const KEYWORDS: Readonly<Record<string, ItemType>> = {
  block: 'block',
  break: 'break',
  continue: 'continue',
  define: 'define',
  else: 'else',
  end: 'end',
  if: 'if',
  range: 'range',
  nil: 'nil',
  template: 'template',
  with: 'with',
  true: 'bool',
  false: 'bool',
};

const isSpace = (c: string | undefined): boolean => c === ' ' || c === '\t' || c === '\r' || c === '\n';
const isAlphaNumeric = (c: string | undefined): boolean => c !== undefined && (c === '_' || /^[\p{L}\p{Nd}]$/u.test(c));
const hasLeftTrimMarker = (s: string, at: number): boolean => s[at] === '-' && isSpace(s[at + 1]);
const hasRightTrimMarker = (s: string, at: number): boolean => isSpace(s[at]) && s[at + 1] === '-';
const TRIM_MARKER_LEN = 2;

/** Delimiters of actions; Go's defaults `{{` and `}}`. */
export interface Delims {
  readonly left: string;
  readonly right: string;
}

/** Lexes `input` into items ending with `eof` or `error` (module doc). */
export function lex(input: string, delims: Delims): Item[] {
  const items: Item[] = [];
  const { left, right } = delims;
  let pos = 0;
  let start = 0;
  let line = 1;
  let startLine = 1;
  let parenDepth = 0;
  const emit = (type: ItemType, val = input.slice(start, pos)): void => {
    items.push({ type, val, pos: start, line: startLine });
    start = pos;
    startLine = line;
  };
  const advance = (to: number): void => {
    for (let i = pos; i < to; i++) if (input[i] === '\n') line++;
    pos = to;
  };
  const ignore = (): void => {
    start = pos;
    startLine = line;
  };
  const fail = (message: string): false => {
    items.push({ type: 'error', val: message, pos: start, line: startLine });
    return false;
  };
  const atTerminator = (): boolean => {
    const c = input[pos];
    if (c === undefined || isSpace(c) || '.,|:()'.includes(c)) return true;
    return input.startsWith(right, pos);
  };
  const skipSpaces = (): void => {
    let p = pos;
    while (isSpace(input[p])) p++;
    advance(p);
    ignore();
  };

  /** Text up to the next action; returns false at the end of input. */
  const lexText = (): boolean => {
    const x = input.indexOf(left, pos);
    if (x < 0) {
      advance(input.length);
      if (pos > start) emit('text');
      emit('eof', '');
      return false;
    }
    const trim = hasLeftTrimMarker(input, x + left.length);
    let end = x;
    if (trim) while (end > start && isSpace(input[end - 1])) end--;
    advance(end);
    if (pos > start) emit('text');
    advance(x);
    ignore();
    return true;
  };

  /** After the left delimiter: a comment or an action's left delimiter. */
  const lexLeftDelim = (): boolean => {
    advance(pos + left.length);
    const trim = hasLeftTrimMarker(input, pos);
    const after = trim ? TRIM_MARKER_LEN : 0;
    if (input.startsWith('/*', pos + after)) {
      advance(pos + after);
      ignore();
      return lexComment();
    }
    emit('leftDelim');
    advance(pos + after);
    ignore();
    parenDepth = 0;
    return lexInsideAction();
  };

  const lexComment = (): boolean => {
    const x = input.indexOf('*/', pos + 2);
    if (x < 0) return fail('unclosed comment');
    advance(x + 2);
    const trim = hasRightTrimMarker(input, pos) && input.startsWith(right, pos + TRIM_MARKER_LEN);
    if (!trim && !input.startsWith(right, pos)) return fail('comment ends before closing delimiter');
    advance(pos + (trim ? TRIM_MARKER_LEN : 0) + right.length);
    ignore();
    if (trim) skipSpaces();
    return true;
  };

  const lexRightDelim = (trim: boolean): boolean => {
    advance(pos + (trim ? TRIM_MARKER_LEN : 0));
    ignore();
    advance(pos + right.length);
    emit('rightDelim');
    if (trim) skipSpaces();
    return true;
  };

  const lexInsideAction = (): boolean => {
    for (;;) {
      const trimDelim = hasRightTrimMarker(input, pos) && input.startsWith(right, pos + TRIM_MARKER_LEN);
      if (trimDelim || input.startsWith(right, pos)) {
        if (parenDepth === 0) return lexRightDelim(trimDelim);
        return fail('unclosed left paren');
      }
      const c = input[pos];
      if (c === undefined) return fail('unclosed action');
      if (isSpace(c)) {
        let p = pos;
        while (isSpace(input[p])) p++;
        // A space before `-}}` belongs to the trim marker.
        if (hasRightTrimMarker(input, p - 1) && input.startsWith(right, p - 1 + TRIM_MARKER_LEN)) {
          advance(p - 1);
          if (pos > start) emit('space');
          continue;
        }
        advance(p);
        emit('space');
        continue;
      }
      advance(pos + 1);
      if (c === '=') emit('assign');
      else if (c === ':') {
        if (input[pos] !== '=') return fail('expected :=');
        advance(pos + 1);
        emit('declare');
      } else if (c === '|') emit('pipe');
      else if (c === '"') {
        if (!lexQuote()) return false;
      } else if (c === '`') {
        const x = input.indexOf('`', pos);
        if (x < 0) return fail('unterminated raw quoted string');
        advance(x + 1);
        emit('rawString');
      } else if (c === '$') {
        if (!lexFieldOrVariable('variable')) return false;
      } else if (c === "'") {
        if (!lexChar()) return false;
      } else if (c === '.' && input[pos] !== undefined && !(input[pos]! >= '0' && input[pos]! <= '9')) {
        if (!lexFieldOrVariable('field')) return false;
      } else if (c === '.' || c === '+' || c === '-' || (c >= '0' && c <= '9')) {
        advance(pos - 1);
        if (!lexNumber()) return false;
      } else if (isAlphaNumeric(c)) {
        advance(pos - 1);
        if (!lexIdentifier()) return false;
      } else if (c === '(') {
        parenDepth++;
        emit('leftParen');
      } else if (c === ')') {
        parenDepth--;
        if (parenDepth < 0) return fail('unexpected right paren');
        emit('rightParen');
      } else if (c.charCodeAt(0) < 0x7f && c.charCodeAt(0) >= 0x20) emit('char');
      else return fail(`unrecognized character in action: ${goRune(c)}`);
    }
  };

  const lexQuote = (): boolean => {
    for (;;) {
      const c = input[pos];
      if (c === '\\' && input[pos + 1] !== undefined && input[pos + 1] !== '\n') {
        advance(pos + 2);
        continue;
      }
      if (c === undefined || c === '\n') return fail('unterminated quoted string');
      advance(pos + 1);
      if (c === '"') break;
    }
    emit('string');
    return true;
  };

  const lexChar = (): boolean => {
    for (;;) {
      const c = input[pos];
      if (c === '\\' && input[pos + 1] !== undefined && input[pos + 1] !== '\n') {
        advance(pos + 2);
        continue;
      }
      if (c === undefined || c === '\n') return fail('unterminated character constant');
      advance(pos + 1);
      if (c === "'") break;
    }
    emit('charConstant');
    return true;
  };

  const lexFieldOrVariable = (type: 'field' | 'variable'): boolean => {
    if (atTerminator()) {
      emit(type === 'variable' ? 'variable' : 'dot');
      return true;
    }
    while (isAlphaNumeric(input[pos])) advance(pos + 1);
    if (!atTerminator()) return fail(`bad character ${goRune(input[pos]!)}`);
    emit(type);
    return true;
  };

  const lexIdentifier = (): boolean => {
    while (isAlphaNumeric(input[pos])) advance(pos + 1);
    if (!atTerminator()) return fail(`bad character ${goRune(input[pos]!)}`);
    const word = input.slice(start, pos);
    emit(Object.hasOwn(KEYWORDS, word) ? KEYWORDS[word]! : 'identifier');
    return true;
  };

  const lexNumber = (): boolean => {
    const accept = (set: string): boolean => {
      if (input[pos] !== undefined && set.includes(input[pos]!)) {
        advance(pos + 1);
        return true;
      }
      return false;
    };
    const acceptRun = (set: string): void => {
      while (accept(set));
    };
    accept('+-');
    let digits = '0123456789_';
    if (accept('0')) {
      if (accept('xX')) digits = '0123456789abcdefABCDEF_';
      else if (accept('oO')) digits = '01234567_';
      else if (accept('bB')) digits = '01_';
    }
    acceptRun(digits);
    if (accept('.')) acceptRun(digits);
    if (digits.length === 11 && accept('eE')) {
      accept('+-');
      acceptRun('0123456789_');
    }
    if (digits.length === 23 && accept('pP')) {
      accept('+-');
      acceptRun('0123456789_');
    }
    accept('i');
    if (isAlphaNumeric(input[pos])) {
      advance(pos + 1);
      return fail(`bad number syntax: ${JSON.stringify(input.slice(start, pos))}`);
    }
    emit('number');
    return true;
  };

  while (lexText() && lexLeftDelim());
  return items;
}

/** Go's `%#U` of a character: `U+0001` (and `'x'` when printable). */
function goRune(c: string): string {
  const code = c.codePointAt(0)!;
  const hex = `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
  return /\p{L}|\p{N}|\p{P}|\p{S}/u.test(c) ? `${hex} '${c}'` : hex;
}
