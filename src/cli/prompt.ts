/**
 * Reading a secret (unseal key, password, token) from the terminal without echoing it, as
 * the reference CLI does with its `(will be hidden)` prompts.
 *
 * @module
 */
import { UsageError } from './args.js';

/** A hidden line being typed: the text so far, and whether Enter ended it or Ctrl-C/Ctrl-D cancelled it. */
export interface HiddenLine {
  value: string;
  done: boolean;
  cancelled: boolean;
}

/**
 * Applies raw terminal input to `value`: Enter (CR or LF) ends the line, Backspace/DEL removes
 * the last character, Ctrl-U clears, Ctrl-C cancels, Ctrl-D cancels on an empty line. Other
 * control characters are ignored; the rest of the chunk after Enter is dropped.
 */
export function applyKeys(value: string, chunk: string): HiddenLine {
  let text = value;
  for (const ch of chunk) {
    if (ch === '\r' || ch === '\n') return { value: text, done: true, cancelled: false };
    if (ch === '\u0003') return { value: '', done: false, cancelled: true };
    if (ch === '\u0004') {
      if (text === '') return { value: '', done: false, cancelled: true };
      continue;
    }
    if (ch === '\u007f' || ch === '\b') text = [...text].slice(0, -1).join('');
    else if (ch === '\u0015') text = '';
    else if (ch >= ' ') text += ch;
  }
  return { value: text, done: false, cancelled: false };
}

/** The parts of `process.stdin` that {@link readHiddenLine} uses. */
export interface TerminalInput {
  isTTY?: boolean;
  setRawMode?(mode: boolean): unknown;
  setEncoding(encoding: BufferEncoding): unknown;
  on(event: 'data', listener: (chunk: string) => void): unknown;
  off(event: 'data', listener: (chunk: string) => void): unknown;
  resume(): unknown;
  pause(): unknown;
}

/**
 * Writes `prompt` to `output`, then reads one line from the terminal `input` with echo off.
 *
 * @throws UsageError when `input` is not a terminal (the value must then be given as an argument);
 *   Error `interrupted` on Ctrl-C or Ctrl-D.
 */
export function readHiddenLine(prompt: string, input: TerminalInput = process.stdin, output: { write(s: string): unknown } = process.stderr): Promise<string> {
  if (!input.isTTY || typeof input.setRawMode !== 'function') {
    return Promise.reject(new UsageError(`${prompt.replace(/\s*\(will be hidden\):\s*$/, '')} not given, and standard input is not a terminal to ask for it`));
  }
  const setRaw = input.setRawMode.bind(input);
  output.write(prompt);
  setRaw(true);
  input.setEncoding('utf8');
  return new Promise<string>((resolve, reject) => {
    let value = '';
    const onData = (chunk: string) => {
      const line = applyKeys(value, chunk);
      value = line.value;
      if (!line.done && !line.cancelled) return;
      input.off('data', onData);
      setRaw(false);
      input.pause();
      output.write('\n');
      if (line.cancelled) reject(new Error('interrupted'));
      else resolve(value);
    };
    input.on('data', onData);
    input.resume();
  });
}
