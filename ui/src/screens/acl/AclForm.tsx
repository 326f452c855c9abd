/**
 * The create form of an ACL kind described by its fields (kinds.ts {@link AclForm}): roles,
 * auth methods, binding rules. Each field is labelled; the write goes to the service's public
 * API, and a refusal (the server's 400 text, or a JSON field that does not parse) is shown
 * right under the fields. Once created, the new object's page opens.
 */
import { useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router';
import { api } from '../../api/client';
import { ErrorNotice } from '../../components/Notice';
import type { AclForm as Form, AclKind, AclService, FormField, Row } from './kinds';

export function AclForm({ service, kind, form }: { service: AclService; kind: AclKind; form: Form }) {
  const queries = useQueryClient();
  const navigate = useNavigate();
  const [values, setValues] = useState<Record<string, string>>(() =>
    Object.fromEntries(form.fields.map((f) => [f.name, f.initial ?? (f.type === 'select' ? (f.options?.[0] ?? '') : '')])),
  );
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const set = (name: string, value: string) => setValues((v) => ({ ...v, [name]: value }));

  const save = async (e: FormEvent) => {
    e.preventDefault();
    setError(undefined);
    setBusy(true);
    try {
      const w = form.write(values);
      const made = await api<Row | undefined>(service.section, w.path, { method: w.method, body: w.body });
      // Dropped, not just invalidated: the list must show the new object when it opens.
      queries.removeQueries({ queryKey: [service.section, 'acl'] });
      const id = made ? kind.idOf(made) : '';
      navigate(id ? `${service.base}/${kind.slug}/${encodeURIComponent(id)}` : `${service.base}/${kind.slug}`);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  const prefix = `acl-${kind.slug}`;
  return (
    <>
      <h1>Create {form.noun}</h1>
      <form className="narrow" onSubmit={(e) => void save(e)} aria-label={`Create ${form.noun}`}>
        {form.fields.map((f) => (
          <Field key={f.name} id={`${prefix}-${f.name}`} field={f} value={values[f.name] ?? ''} onChange={(v) => set(f.name, v)} />
        ))}
        <ErrorNotice error={error} />
        <div className="actions">
          <button type="submit" className="primary" disabled={busy}>
            Create {form.noun}
          </button>
        </div>
      </form>
    </>
  );
}

/** One labelled control, its hint tied to it with aria-describedby. */
function Field({ id, field, value, onChange }: { id: string; field: FormField; value: string; onChange: (v: string) => void }) {
  const hintId = field.hint ? `${id}-hint` : undefined;
  const common = { id, 'aria-describedby': hintId, required: field.required };
  if (field.type === 'checkbox') {
    return (
      <div className="field inline check">
        <input type="checkbox" {...common} checked={value === 'true'} onChange={(e) => onChange(e.target.checked ? 'true' : '')} />
        <label htmlFor={id}>{field.label}</label>
        {field.hint && (
          <span id={hintId} className="muted">
            {field.hint}
          </span>
        )}
      </div>
    );
  }
  return (
    <div className="field">
      <label htmlFor={id}>{field.label}</label>
      {field.type === 'select' ? (
        <select {...common} value={value} onChange={(e) => onChange(e.target.value)}>
          {field.options?.map((o) => (
            <option key={o} value={o}>
              {o}
            </option>
          ))}
        </select>
      ) : field.type === 'json' ? (
        <textarea {...common} className="mono" rows={6} spellCheck={false} value={value} onChange={(e) => onChange(e.target.value)} />
      ) : (
        <input {...common} value={value} onChange={(e) => onChange(e.target.value)} />
      )}
      {field.hint && (
        <span id={hintId} className="muted">
          {field.hint}
        </span>
      )}
    </div>
  );
}
