/**
 * A PKI engine (reference/secrets-engines.md §7): its issuer (the default CA, or a form to
 * generate a root), roles (create), a certificate issued from a role, the stored
 * certificates with their revocation, and the CRL (PkiCerts.tsx).
 */
import { useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { ApiError } from '../../../api/client';
import { DataTable } from '../../../components/DataTable';
import { ErrorNotice } from '../../../components/Notice';
import { engineCall, useAction, useKeys } from './engineApi';
import { PkiCerts } from './PkiCerts';
import { PkiIssue } from './PkiIssue';

export function Pki({ mount }: { mount: string }) {
  const roles = useKeys(mount, 'roles');
  const { error, notice, run } = useAction();
  return (
    <>
      <h1>PKI engine {mount}/</h1>
      <ErrorNotice error={roles.error ?? error} />
      {notice && <p role="status">{notice}</p>}
      <Issuer mount={mount} run={run} />
      <h2>Roles</h2>
      <DataTable testId="pki-roles" caption="Roles" rows={roles.data ?? []} rowKey={(r) => r} columns={[['Name', (r) => r]]} />
      <RoleForm mount={mount} run={run} />
      <PkiIssue mount={mount} roles={roles.data ?? []} run={run} />
      <PkiCerts mount={mount} run={run} />
    </>
  );
}

type Run = ReturnType<typeof useAction>['run'];

/** The default issuer's certificate (`GET cert/ca`), or a form to generate a root CA (`root/generate/internal`). */
function Issuer({ mount, run }: { mount: string; run: Run }) {
  const q = useQuery({
    queryKey: ['secrets', 'engine', mount, 'ca'],
    queryFn: async () => {
      try {
        return (await engineCall<{ certificate: string }>(mount, 'cert/ca')).certificate || '';
      } catch (err) {
        // No issuer yet.
        if (err instanceof ApiError && (err.status === 404 || err.status === 400)) return '';
        throw err;
      }
    },
  });
  const [cn, setCn] = useState('');
  const [keyType, setKeyType] = useState('ec');
  const [ttl, setTtl] = useState('87600h');
  const generate = (e: FormEvent) => {
    e.preventDefault();
    void run(async () => {
      const r = await engineCall<{ serial_number: string }>(mount, 'root/generate/internal', {
        method: 'POST',
        body: { common_name: cn, key_type: keyType, ttl },
      });
      return `Generated root CA ${cn} (serial ${r.serial_number}).`;
    });
  };
  return (
    <section aria-labelledby="pki-issuer">
      <h2 id="pki-issuer">Issuer</h2>
      <ErrorNotice error={q.error} />
      {q.data ? (
        <details>
          <summary>Default issuer's certificate</summary>
          <pre data-testid="pki-ca">{q.data}</pre>
        </details>
      ) : (
        q.data === '' && (
          <form className="toolbar" onSubmit={generate} aria-label="Generate a root CA">
            <p className="muted">No issuer yet.</p>
            <div className="field inline">
              <label htmlFor="root-cn">Root common name</label>
              <input id="root-cn" value={cn} onChange={(e) => setCn(e.target.value)} required />
            </div>
            <div className="field inline">
              <label htmlFor="root-key-type">Key type</label>
              <select id="root-key-type" value={keyType} onChange={(e) => setKeyType(e.target.value)}>
                <option>ec</option>
                <option>rsa</option>
                <option>ed25519</option>
              </select>
            </div>
            <div className="field inline">
              <label htmlFor="root-ttl">TTL</label>
              <input id="root-ttl" value={ttl} onChange={(e) => setTtl(e.target.value)} size={8} />
            </div>
            <button type="submit" className="primary">
              Generate root CA
            </button>
          </form>
        )
      )}
    </section>
  );
}

/** `POST roles/:name` with the domain rules most roles use. */
function RoleForm({ mount, run }: { mount: string; run: Run }) {
  const [f, setF] = useState({ name: '', domains: '', subdomains: true, bare: false, localhost: false, maxTtl: '72h', keyType: 'ec' });
  const text = (k: 'name' | 'domains' | 'maxTtl' | 'keyType') => (e: { target: { value: string } }) => setF({ ...f, [k]: e.target.value });
  const flag = (k: 'subdomains' | 'bare' | 'localhost') => (e: { target: { checked: boolean } }) => setF({ ...f, [k]: e.target.checked });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void run(async () => {
      await engineCall(mount, `roles/${f.name}`, {
        method: 'POST',
        body: {
          allowed_domains: f.domains,
          allow_subdomains: f.subdomains,
          allow_bare_domains: f.bare,
          allow_localhost: f.localhost,
          max_ttl: f.maxTtl,
          key_type: f.keyType,
        },
      });
      return `Saved role ${f.name}.`;
    });
  };
  return (
    <form onSubmit={submit} aria-label="Create a PKI role">
      <h3>Create a role</h3>
      <div className="field inline">
        <label htmlFor="pki-role-name">Role name</label>
        <input id="pki-role-name" value={f.name} onChange={text('name')} required />
      </div>
      <div className="field inline">
        <label htmlFor="pki-role-domains">Allowed domains (comma-separated)</label>
        <input id="pki-role-domains" value={f.domains} onChange={text('domains')} size={30} />
      </div>
      <div className="field inline">
        <input id="pki-role-sub" type="checkbox" checked={f.subdomains} onChange={flag('subdomains')} />
        <label htmlFor="pki-role-sub">Subdomains</label>
        <input id="pki-role-bare" type="checkbox" checked={f.bare} onChange={flag('bare')} />
        <label htmlFor="pki-role-bare">Bare domains</label>
        <input id="pki-role-localhost" type="checkbox" checked={f.localhost} onChange={flag('localhost')} />
        <label htmlFor="pki-role-localhost">localhost</label>
      </div>
      <div className="field inline">
        <label htmlFor="pki-role-key-type">Key type</label>
        <select id="pki-role-key-type" value={f.keyType} onChange={text('keyType')}>
          <option>ec</option>
          <option>rsa</option>
          <option>ed25519</option>
        </select>
        <label htmlFor="pki-role-max-ttl">Max TTL</label>
        <input id="pki-role-max-ttl" value={f.maxTtl} onChange={text('maxTtl')} size={6} />
      </div>
      <button type="submit" className="primary">
        Save role
      </button>
    </form>
  );
}
