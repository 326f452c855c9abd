/** A secret's value: hidden until revealed, copyable without revealing it. */
import { useState } from 'react';

export function SecretValue({ name, value }: { name: string; value: unknown }) {
  const [shown, setShown] = useState(false);
  const [copied, setCopied] = useState(false);
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  const copy = async () => {
    await navigator.clipboard.writeText(text);
    setCopied(true);
    setTimeout(() => setCopied(false), 1500);
  };
  return (
    <span className="secret-value">
      <code data-testid={`value-${name}`}>{shown ? text : '••••••••'}</code>
      <button type="button" onClick={() => setShown(!shown)} aria-pressed={shown} aria-label={`${shown ? 'Hide' : 'Reveal'} ${name}`}>
        {shown ? 'Hide' : 'Reveal'}
      </button>
      <button type="button" onClick={() => void copy()} aria-label={`Copy ${name}`}>
        {copied ? 'Copied' : 'Copy'}
      </button>
    </span>
  );
}
