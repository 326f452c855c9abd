/**
 * The namespace a tab works in, for a section that has namespaces (the secrets service's,
 * the discovery service's): a labelled field and a Switch button. `onSwitch` gets the typed
 * name without surrounding slashes ('' = the section's default); the caller stores it in
 * the session and drops cached replies.
 */
import { useState, type FormEvent } from 'react';

export function NamespaceSwitcher({
  id,
  label,
  value,
  placeholder,
  choices,
  onSwitch,
}: {
  id: string;
  label: string;
  value: string;
  /** Shown while the field is empty: the namespace an empty value means. */
  placeholder: string;
  /** Known namespaces, offered as the field's suggestions. */
  choices?: readonly string[];
  onSwitch: (ns: string) => void;
}) {
  const [typed, setTyped] = useState(value);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    onSwitch(typed.trim().replace(/^\/+|\/+$/g, ''));
  };
  return (
    <form className="ns" onSubmit={submit}>
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        value={typed}
        placeholder={placeholder}
        onChange={(e) => setTyped(e.target.value)}
        size={12}
        list={choices ? `${id}-choices` : undefined}
      />
      {choices && (
        <datalist id={`${id}-choices`}>
          {choices.map((c) => (
            <option key={c} value={c} />
          ))}
        </datalist>
      )}
      <button type="submit" aria-label="Switch namespace">
        Switch
      </button>
    </form>
  );
}
