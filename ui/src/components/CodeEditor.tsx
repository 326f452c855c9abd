/**
 * CodeMirror 6 for HCL and JSON, loaded on demand (its own chunk, not in the initial
 * JavaScript). Its styles go in constructed style sheets, which the UI's strict CSP allows.
 * `errorLine` (1-based) marks the line a server error names.
 */
import { defaultKeymap, history, historyKeymap } from '@codemirror/commands';
import { json } from '@codemirror/lang-json';
import { defaultHighlightStyle, syntaxHighlighting, bracketMatching } from '@codemirror/language';
import { EditorState, StateEffect, StateField, type Extension } from '@codemirror/state';
import { Decoration, EditorView, keymap, lineNumbers, type DecorationSet } from '@codemirror/view';
import { useEffect, useRef } from 'react';
import { hcl } from './hcl';

const setErrorLine = StateEffect.define<number | undefined>();
const errorLineField = StateField.define<DecorationSet>({
  create: () => Decoration.none,
  update(deco, tr) {
    for (const e of tr.effects) {
      if (!e.is(setErrorLine)) continue;
      if (e.value === undefined || e.value < 1 || e.value > tr.state.doc.lines) return Decoration.none;
      const line = tr.state.doc.line(e.value);
      return Decoration.set([Decoration.line({ class: 'cm-error-line', attributes: { 'aria-invalid': 'true' } }).range(line.from)]);
    }
    return tr.docChanged ? Decoration.none : deco.map(tr.changes);
  },
  provide: (f) => EditorView.decorations.from(f),
});

export interface CodeEditorProps {
  label: string;
  language: 'hcl' | 'json';
  value: string;
  onChange: (v: string) => void;
  errorLine?: number;
}

export default function CodeEditor({ label, language, value, onChange, errorLine }: CodeEditorProps) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView>(undefined);
  const changed = useRef(onChange);
  changed.current = onChange;

  useEffect(() => {
    const extensions: Extension[] = [
      lineNumbers(),
      history(),
      bracketMatching(),
      syntaxHighlighting(defaultHighlightStyle),
      // Tab is left to move focus, so the editor is no keyboard trap.
      keymap.of([...defaultKeymap, ...historyKeymap]),
      language === 'json' ? json() : hcl,
      errorLineField,
      EditorView.contentAttributes.of({ 'aria-label': label }),
      EditorView.updateListener.of((u) => {
        if (u.docChanged) changed.current(u.state.doc.toString());
      }),
    ];
    const v = new EditorView({ state: EditorState.create({ doc: value, extensions }), parent: host.current! });
    view.current = v;
    return () => v.destroy();
    // The editor owns its text once created; `value` seeds it.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [language, label]);

  useEffect(() => {
    view.current?.dispatch({ effects: setErrorLine.of(errorLine) });
  }, [errorLine]);

  return <div className="code-editor" ref={host} data-testid="code-editor" />;
}
