/**
 * CodeMirror 6 for HCL and JSON, loaded on demand (its own chunk, not in the initial
 * JavaScript). The editor lives in a shadow root: there CodeMirror puts its styles in
 * constructed style sheets (`adoptedStyleSheets`), which the UI's strict CSP allows, where
 * in the document it would add a `<style>` element the CSP refuses. The theme's colours
 * come through as inherited custom properties. `errorLine` (1-based) marks the line a
 * server error names.
 */
import { defaultKeymap, history, historyKeymap } from '@codemirror/commands';
import { json } from '@codemirror/lang-json';
import { bracketMatching, HighlightStyle, syntaxHighlighting } from '@codemirror/language';
import { tags } from '@lezer/highlight';
import { EditorState, StateEffect, StateField, type Extension } from '@codemirror/state';
import { Decoration, EditorView, keymap, lineNumbers, type DecorationSet } from '@codemirror/view';
import { useEffect, useRef } from 'react';
import { hcl } from './hcl';

/** The page's colours (styles.css custom properties) in the editor. */
const theme = EditorView.theme({
  '&': { minHeight: '12rem', backgroundColor: 'var(--bg)', color: 'var(--text)', border: '1px solid var(--border)', borderRadius: '4px' },
  '&.cm-focused': { outline: '3px solid var(--focus)', outlineOffset: '2px' },
  '.cm-scroller': { fontFamily: "ui-monospace, 'DejaVu Sans Mono', monospace" },
  '.cm-content': { caretColor: 'var(--text)' },
  '.cm-gutters': { backgroundColor: 'var(--panel)', color: 'var(--muted)', borderRight: '1px solid var(--border)' },
  '.cm-activeLine': { backgroundColor: 'transparent' },
  '.cm-error-line': { backgroundColor: 'var(--removed)', outline: '1px solid var(--danger)' },
});

/** Token colours from the theme, so both themes keep their contrast. */
const highlight = HighlightStyle.define([
  { tag: tags.keyword, color: 'var(--accent)', fontWeight: '600' },
  { tag: [tags.string, tags.special(tags.string)], color: 'var(--ok)' },
  { tag: [tags.number, tags.bool, tags.null], color: 'var(--warn)' },
  { tag: tags.propertyName, color: 'var(--text)', fontWeight: '600' },
  { tag: tags.comment, color: 'var(--muted)', fontStyle: 'italic' },
]);

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
      syntaxHighlighting(highlight),
      // Tab is left to move focus, so the editor is no keyboard trap.
      keymap.of([...defaultKeymap, ...historyKeymap]),
      language === 'json' ? json() : hcl,
      errorLineField,
      theme,
      EditorView.contentAttributes.of({ 'aria-label': label }),
      EditorView.updateListener.of((u) => {
        if (u.docChanged) changed.current(u.state.doc.toString());
      }),
    ];
    const shadow = host.current!.shadowRoot ?? host.current!.attachShadow({ mode: 'open' });
    const v = new EditorView({ state: EditorState.create({ doc: value, extensions }), parent: shadow, root: shadow });
    view.current = v;
    return () => v.destroy();
    // eslint-disable-next-line react-hooks/exhaustive-deps -- the editor owns its text once created; `value` only seeds it
  }, [language, label]);

  useEffect(() => {
    view.current?.dispatch({ effects: setErrorLine.of(errorLine) });
  }, [errorLine]);

  return <div className="code-editor" ref={host} data-testid="code-editor" />;
}
