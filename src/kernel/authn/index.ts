/**
 * Public entry of the authentication kernel: service-neutral building blocks for the
 * discovery service's and the scheduler's auth methods (DESIGN.md "authn/"). Services map
 * their wire field names onto {@link AuthMethodConfig} and {@link AuthnError} kinds onto
 * their own statuses; error messages are the reference's texts.
 *
 * - JWT validation: {@link validateAuthMethodConfig}, {@link createJwtValidator} (reference/mesh.md §4.4)
 * - claims → identity: {@link identityFromClaims} (§3.5, §4.4); bound claims and subject: {@link checkBoundClaims}, {@link checkBoundSubject}
 * - OIDC code flow: {@link createOidcFlow} (§5; sched.md §2.5)
 * - validators and flows kept per auth method version: {@link AuthnBuilds}
 * - Kubernetes: {@link validateKubernetesConfig}, {@link reviewServiceAccountToken}, {@link identityFromServiceAccount} (§4.3)
 * - binding rules: {@link interpolateBindName}, {@link bindIdentity}, {@link checkBindingRule} (§3.4, §6.6; sched.md §2.4)
 * - passwords (scrypt): {@link hashPassword}, {@link verifyPassword} (secrets userpass, gateway password accounts)
 * - TLS client certificates: {@link certificateFacts}, {@link verifyClientChains} (Vault `auth/cert`)
 *
 * @module
 */
export { AuthnError } from './errors.js';
export { AuthnBuilds } from './builds.js';
export { SUPPORTED_ALGS, validateAuthMethodConfig, type AuthMethodConfig } from './config.js';
export { checkAudience, createJwtValidator, type Claims, type JwtValidator } from './jwt.js';
export { getClaim, identityFromClaims, type Identity } from './claims.js';
export { checkBoundClaims, checkBoundSubject, globMatch } from './bound-claims.js';
export { interpolateBindName } from './interpolate.js';
export { bindIdentity, checkBindingRule, grantsNothing, MESH_BIND_PROFILE, SCHED_BIND_PROFILE, type BindingRule, type SelectorMatcher } from './bind.js';
export { createOidcFlow, type OidcFlow } from './oidc.js';
export { PendingStates } from './oidc-state.js';
export { identityFromServiceAccount, reviewServiceAccountToken, validateKubernetesConfig, type KubernetesConfig } from './kubernetes.js';
export {
  allowsClientAuth,
  CertificateFormatError,
  CertificateInvalidError,
  certificateFacts,
  parsePemCertificates,
  verifyClientChains,
  type CertificateFacts,
} from './x509.js';
