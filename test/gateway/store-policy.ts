/**
 * The policy a gateway controller's credential-store token needs at the secrets service
 * (docs/deploy.md "Credential stores"), plus the paths its libraries read, for tests that
 * make such a token.
 */
export function storePolicy(...readPaths: string[]): string {
  return [
    'path "auth/token/lookup-self" { capabilities = ["read"] }',
    'path "auth/token/renew-self" { capabilities = ["update"] }',
    'path "auth/token/revoke-self" { capabilities = ["update"] }',
    'path "sys/leases/renew" { capabilities = ["update"] }',
    'path "sys/leases/revoke" { capabilities = ["update"] }',
    ...readPaths.map((p) => `path "${p}" { capabilities = ["read"] }`),
    '',
  ].join('\n');
}
