/**
 * A throwaway PKI made with the `openssl` CLI for the `cert` auth method's tests: a CA,
 * a server certificate for 127.0.0.1, and client certificates with chosen names,
 * extensions and validity, in a temporary directory.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** One certificate and its key: file paths and PEM texts. */
export interface Issued {
  readonly certFile: string;
  readonly keyFile: string;
  readonly cert: string;
  readonly key: string;
}

/** A directory of certificates, removed by {@link Pki.remove}. */
export class Pki {
  readonly dir = mkdtempSync(join(tmpdir(), 'cairn-cert-auth-'));
  private serial = 1;

  private openssl(args: string[]): void {
    execFileSync('openssl', args, { stdio: 'ignore', cwd: this.dir });
  }

  private read(name: string): Issued {
    const certFile = join(this.dir, `${name}.pem`);
    const keyFile = join(this.dir, `${name}.key`);
    return { certFile, keyFile, cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8') };
  }

  /** A self-signed certificate `name` (a CA unless `leaf`, then with the clientAuth usage). */
  selfSigned(name: string, subject: string, o: { leaf?: boolean } = {}): Issued {
    const ext = o.leaf ? ['-addext', 'basicConstraints=critical,CA:FALSE', '-addext', 'extendedKeyUsage=clientAuth'] : [];
    this.openssl([
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '2',
      '-subj',
      subject,
      ...ext,
      '-keyout',
      `${name}.key`,
      '-out',
      `${name}.pem`,
    ]);
    return this.read(name);
  }

  /**
   * A certificate `name` for `subject` issued by `ca`, valid for `days` from now (default 1;
   * negative: already expired), with the extension lines `ext` (openssl x509v3 config syntax).
   */
  issue(name: string, ca: Issued, { subject, ext, days = 1 }: { subject: string; ext: string[]; days?: number }): Issued {
    this.openssl([
      'req',
      '-new',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-subj',
      subject,
      '-keyout',
      `${name}.key`,
      '-out',
      `${name}.csr`,
    ]);
    writeFileSync(join(this.dir, `${name}.ext`), `${['subjectKeyIdentifier=hash', 'authorityKeyIdentifier=keyid', ...ext].join('\n')}\n`);
    this.openssl([
      'x509',
      '-req',
      '-in',
      `${name}.csr`,
      '-CA',
      ca.certFile,
      '-CAkey',
      ca.keyFile,
      '-set_serial',
      String(1000 + this.serial++),
      '-days',
      String(days),
      '-extfile',
      `${name}.ext`,
      '-out',
      `${name}.pem`,
    ]);
    return this.read(name);
  }

  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}
