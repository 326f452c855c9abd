/** Issue a certificate from a PKI role (`POST issue/:role`): its serial, expiry, certificate, chain and private key (shown once, never stored). */
import { useState, type FormEvent } from 'react';
import { SecretValue } from '../SecretValue';
import { engineCall, type useAction } from './engineApi';

interface IssuedCert {
  serial_number: string;
  expiration: number;
  certificate: string;
  private_key: string;
  private_key_type: string;
}

type Run = ReturnType<typeof useAction>['run'];

export function PkiIssue({ mount, roles, run }: { mount: string; roles: readonly string[]; run: Run }) {
  const [role, setRole] = useState('');
  const [cn, setCn] = useState('');
  const [alt, setAlt] = useState('');
  const [ttl, setTtl] = useState('24h');
  const [issued, setIssued] = useState<IssuedCert>();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const r = role || roles[0] || '';
    void run(async () => {
      const c = await engineCall<IssuedCert>(mount, `issue/${r}`, { method: 'POST', body: { common_name: cn, alt_names: alt, ttl } });
      setIssued(c);
      return `Issued a certificate for ${cn} (serial ${c.serial_number}).`;
    });
  };
  return (
    <section aria-labelledby="pki-issue">
      <h2 id="pki-issue">Issue a certificate</h2>
      <form className="toolbar" onSubmit={submit} aria-label="Issue a certificate">
        <div className="field inline">
          <label htmlFor="issue-role">Role</label>
          <select id="issue-role" value={role || roles[0] || ''} onChange={(e) => setRole(e.target.value)}>
            {roles.map((r) => (
              <option key={r}>{r}</option>
            ))}
          </select>
        </div>
        <div className="field inline">
          <label htmlFor="issue-cn">Common name</label>
          <input id="issue-cn" value={cn} onChange={(e) => setCn(e.target.value)} required />
        </div>
        <div className="field inline">
          <label htmlFor="issue-alt">Alternative names (comma-separated)</label>
          <input id="issue-alt" value={alt} onChange={(e) => setAlt(e.target.value)} />
        </div>
        <div className="field inline">
          <label htmlFor="issue-ttl">TTL</label>
          <input id="issue-ttl" value={ttl} onChange={(e) => setTtl(e.target.value)} size={6} />
        </div>
        <button type="submit" className="primary" disabled={roles.length === 0}>
          Issue
        </button>
      </form>
      {issued && (
        <dl className="facts" data-testid="pki-issued">
          <div>
            <dt>Serial number</dt>
            <dd>
              <code data-testid="issued-serial">{issued.serial_number}</code>
            </dd>
          </div>
          <div>
            <dt>Expires</dt>
            <dd>{new Date(Number(issued.expiration) * 1000).toLocaleString()}</dd>
          </div>
          <div>
            <dt>Certificate</dt>
            <dd>
              <details>
                <summary>PEM</summary>
                <pre>{issued.certificate}</pre>
              </details>
            </dd>
          </div>
          <div>
            <dt>Private key ({issued.private_key_type}; shown this once)</dt>
            <dd>
              <SecretValue name="private key" value={issued.private_key} />
            </dd>
          </div>
        </dl>
      )}
    </section>
  );
}
