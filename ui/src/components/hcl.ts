/**
 * HCL (v1, as policies and configuration use it) for CodeMirror: a small stream tokenizer
 * (comments, strings with escapes, numbers, booleans, block and attribute names). No HCL
 * grammar package exists for CodeMirror 6; highlighting needs no more than this.
 */
import { StreamLanguage, type StringStream } from '@codemirror/language';

interface State {
  inComment: boolean;
}

function token(stream: StringStream, state: State): string | null {
  if (state.inComment) {
    if (stream.skipTo('*/')) {
      stream.match('*/');
      state.inComment = false;
    } else stream.skipToEnd();
    return 'comment';
  }
  if (stream.eatSpace()) return null;
  if (stream.match('#') || stream.match('//')) {
    stream.skipToEnd();
    return 'comment';
  }
  if (stream.match('/*')) {
    state.inComment = true;
    return 'comment';
  }
  if (stream.match(/^"(?:[^"\\]|\\.)*"?/)) return 'string';
  if (stream.match(/^-?\d+(\.\d+)?/)) return 'number';
  if (stream.match(/^(true|false)\b/)) return 'bool';
  if (stream.match(/^[A-Za-z_][\w-]*(?=\s*=)/)) return 'propertyName';
  if (stream.match(/^[A-Za-z_][\w-]*/)) return 'keyword';
  stream.next();
  return null;
}

export const hcl = StreamLanguage.define<State>({
  name: 'hcl',
  startState: () => ({ inComment: false }),
  token,
  languageData: { commentTokens: { line: '#' } },
});
