/**
 * KV v2 reads under a policy: the reads of `kv-read` (same keys, same pre-built request
 * list) with a non-root token whose only policy besides `default` has 50 `path` rules,
 * so every request has the ACL pick the governing rule among many (exact rules, `*`
 * prefix globs, `+` segment rules; reference/secrets.md §5.3).
 */
import { api, type Scenario } from './harness.js';
import { READ_KEYS, ensureReadKeys, kvReadRequests, secretData } from './kv.js';

/** Name of the 50-rule policy. */
const POLICY_NAME = 'bench-50-rules';

/** The one rule that grants the benchmark's reads. */
const GRANTING_RULE = 'secret/data/bench/*';

/**
 * The 50 rules: 47 on paths the benchmark never touches, a mix of kinds —
 *   16 prefix globs  `secret/data/team-<i>/*`  (longer than the granting rule, so a
 *      longest-first prefix scan passes them before reaching it),
 *   12 segment rules `secret/metadata/+/app-<i>`,
 *    9 segment+prefix rules `secret/data/+/svc-<i>/*`,
 *   10 exact rules   `sys/mounts/x<i>`;
 * two rules that also match the benchmark's paths but lose to the granting rule on
 * priority (and grant only `list`, so picking either would answer 403 and fail the
 * run): `secret/+/bench/*` (earlier wildcard) and `secret/data/*` (shorter prefix);
 * and the granting rule, `read` on `secret/data/bench/*`.
 */
function policyRules(): { pattern: string; capabilities: string[] }[] {
  const rules: { pattern: string; capabilities: string[] }[] = [];
  const mix = [['read', 'list'], ['create', 'update'], ['read'], ['deny']];
  for (let i = 0; i < 16; i++) rules.push({ pattern: `secret/data/team-${i}/*`, capabilities: mix[i % mix.length] });
  for (let i = 0; i < 12; i++) rules.push({ pattern: `secret/metadata/+/app-${i}`, capabilities: ['read', 'list'] });
  for (let i = 0; i < 9; i++) rules.push({ pattern: `secret/data/+/svc-${i}/*`, capabilities: mix[i % mix.length] });
  for (let i = 0; i < 10; i++) rules.push({ pattern: `sys/mounts/x${i}`, capabilities: ['read'] });
  rules.push({ pattern: 'secret/+/bench/*', capabilities: ['list'] });
  rules.push({ pattern: 'secret/data/*', capabilities: ['list'] });
  rules.push({ pattern: GRANTING_RULE, capabilities: ['read'] });
  return rules;
}

/** The policy as HCL, one `path` block per rule. */
function policyHcl(): string {
  return policyRules()
    .map((r) => `path "${r.pattern}" {\n  capabilities = [${r.capabilities.map((c) => `"${c}"`).join(', ')}]\n}\n`)
    .join('\n');
}

/** The token holding the policy (set by setup). */
let policyToken: string | undefined;

export const kvReadPolicy: Scenario = {
  name: 'kv-read-policy',
  description: `as kv-read, non-root token: policy of ${policyRules().length} path rules + default`,
  server: 'secrets',
  async setup(ctx) {
    const server = ctx.servers.secrets;
    await ensureReadKeys(ctx);
    const rules = policyRules();
    if (rules.length !== 50) throw new Error(`kv-read-policy: ${rules.length} rules, want 50`);
    await api(server, 'PUT', `/v1/sys/policies/acl/${POLICY_NAME}`, { body: { policy: policyHcl() } });
    const r = await api(server, 'POST', '/v1/auth/token/create', { body: { policies: [POLICY_NAME] } });
    policyToken = (r.json as { auth?: { client_token?: string } }).auth?.client_token;
    if (!policyToken) throw new Error(`kv-read-policy: no client_token in ${r.text.slice(0, 300)}`);
  },
  async check(ctx) {
    const server = ctx.servers.secrets;
    const token = policyToken!;
    // The token is what it should be: not root, exactly default + the 50-rule policy.
    const self = await api(server, 'GET', '/v1/auth/token/lookup-self', { token });
    const policies = (self.json as { data?: { policies?: string[] } }).data?.policies;
    if (JSON.stringify([...(policies ?? [])].sort()) !== JSON.stringify([POLICY_NAME, 'default'].sort())) {
      throw new Error(`kv-read-policy check: token policies ${JSON.stringify(policies)}`);
    }
    const stored = await api(server, 'GET', `/v1/sys/policies/acl/${POLICY_NAME}`);
    const hcl = (stored.json as { data?: { policy?: string } }).data?.policy ?? '';
    const count = (hcl.match(/^path "/gm) ?? []).length;
    if (count !== 50) throw new Error(`kv-read-policy check: stored policy has ${count} path rules`);
    // The granting rule governs the read paths (read only: not the `list` of the two
    // lower-priority rules that also match).
    const caps = await api(server, 'POST', '/v1/sys/capabilities', { body: { token, paths: ['secret/data/bench/k0'] } });
    const got = (caps.json as { data?: { capabilities?: string[] } }).data?.capabilities;
    if (JSON.stringify(got) !== JSON.stringify(['read'])) {
      throw new Error(`kv-read-policy check: capabilities on secret/data/bench/k0 ${JSON.stringify(got)}, want ["read"]`);
    }
    // The read itself, in full, and a denial outside the granted paths.
    const i = READ_KEYS - 1;
    const r = await api(server, 'GET', `/v1/secret/data/bench/k${i}`, { token });
    const data = (r.json as { data?: { data?: unknown } }).data?.data;
    if (JSON.stringify(data) !== JSON.stringify(secretData(i))) {
      throw new Error(`kv-read-policy check: unexpected reply ${r.text.slice(0, 300)}`);
    }
    await api(server, 'GET', '/v1/secret/data/other/k0', { token, expect: 403 });
    await api(server, 'POST', `/v1/secret/data/bench/k${i}`, { body: { data: secretData(i) }, token, expect: 403 });
  },
  requests: () => kvReadRequests(policyToken!),
};
