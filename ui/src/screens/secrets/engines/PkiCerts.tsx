/**
 * A PKI mount's stored certificates (`LIST certs`) marked revoked from `LIST certs/revoked`,
 * each revocable (`POST revoke`), and the CRL (`GET cert/crl`, PEM) with a rebuild (`GET crl/rotate`).
 */
import { useQuery } from '@tanstack/react-query';
import { ApiError } from '../../../api/client';
import { DataTable } from '../../../components/DataTable';
import { ErrorNotice } from '../../../components/Notice';
import { engineCall, useKeys, type useAction } from './engineApi';

type Run = ReturnType<typeof useAction>['run'];

export function PkiCerts({ mount, run }: { mount: string; run: Run }) {
  const certs = useKeys(mount, 'certs');
  const revoked = useKeys(mount, 'certs/revoked');
  const crl = useQuery({
    queryKey: ['secrets', 'engine', mount, 'crl'],
    queryFn: async () => {
      try {
        return (await engineCall<{ certificate: string }>(mount, 'cert/crl')).certificate;
      } catch (err) {
        // No issuer yet, so no CRL.
        if (err instanceof ApiError && err.status === 404) return '';
        throw err;
      }
    },
  });
  const isRevoked = (serial: string) => (revoked.data ?? []).includes(serial);
  return (
    <>
      <h2>Certificates</h2>
      <ErrorNotice error={certs.error ?? revoked.error} />
      <DataTable
        testId="pki-certs"
        caption="Issued certificates"
        rows={certs.data ?? []}
        rowKey={(s) => s}
        columns={[
          ['Serial number', (s) => <code>{s}</code>],
          ['State', (s) => (isRevoked(s) ? 'revoked' : 'valid')],
          [
            'Actions',
            (s) =>
              !isRevoked(s) && (
                <button
                  type="button"
                  className="danger"
                  aria-label={`Revoke certificate ${s}`}
                  onClick={() =>
                    confirm(`Revoke certificate ${s}? It goes into the CRL.`) &&
                    void run(async () => (await engineCall(mount, 'revoke', { method: 'POST', body: { serial_number: s } }), `Revoked ${s}.`))
                  }
                >
                  Revoke
                </button>
              ),
          ],
        ]}
      />
      <h2>Certificate revocation list</h2>
      <ErrorNotice error={crl.error} />
      <div className="toolbar">
        <button type="button" onClick={() => void run(async () => (await engineCall(mount, 'crl/rotate'), 'Rebuilt the CRL.'))}>
          Rebuild CRL
        </button>
      </div>
      {crl.data === '' && <p className="muted">No CRL yet: generate a root CA first.</p>}
      {crl.data && <pre data-testid="pki-crl">{crl.data}</pre>}
    </>
  );
}
