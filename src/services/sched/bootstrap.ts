/**
 * What every scheduler agent makes at start: the `default` namespace, and in `cairn dev`
 * a management token with a chosen secret (the dev root token), which uses up bootstrap.
 *
 * @module
 */
import type { StateStore } from '../../kernel/store/index.js';
import { BOOTSTRAP_TOKEN_NAME } from './acl/index.js';
import { DEFAULT_NAMESPACE, T, type MetaDoc, type NamespaceDoc, type TokenDoc } from './state.js';
import { makeToken } from './token.js';

/** The meta document that records bootstrap. */
export const BOOTSTRAP_META_ID = 'bootstrap';

/** Creates the `default` namespace when missing. */
export async function ensureDefaultNamespace(state: StateStore): Promise<void> {
  if (state.get(T.namespaces, DEFAULT_NAMESPACE)) return;
  await state.txn((tx) => {
    if (!tx.get(T.namespaces, DEFAULT_NAMESPACE))
      tx.put<NamespaceDoc>(T.namespaces, DEFAULT_NAMESPACE, { Name: DEFAULT_NAMESPACE, Description: 'Default shared namespace', Meta: null });
  });
}

/**
 * Makes sure a global management token with secret `secret` exists and bootstrap is marked
 * done; other tokens named {@link BOOTSTRAP_TOKEN_NAME} made this way by an earlier start
 * (an earlier dev root token) are deleted. Returns whether it created the token.
 */
export async function ensureInitialManagement(state: StateStore, secret: string, nowMs: number): Promise<boolean> {
  const { result } = await state.txn((tx) => {
    let created = false;
    const tokens = tx.list<TokenDoc>(T.tokens);
    for (const t of tokens) if (t.Name === DEV_TOKEN_NAME && t.SecretID !== secret) tx.delete(T.tokens, t.AccessorID);
    if (!tokens.some((t) => t.SecretID === secret)) {
      const token = makeToken({ Name: DEV_TOKEN_NAME, Type: 'management', Global: true, SecretID: secret }, nowMs);
      tx.put(T.tokens, token.AccessorID, token);
      created = true;
    }
    if (!tx.get<MetaDoc>(T.meta, BOOTSTRAP_META_ID)?.Bootstrapped) tx.put<MetaDoc>(T.meta, BOOTSTRAP_META_ID, { Bootstrapped: true });
    return created;
  });
  return result;
}

/** Name of the dev root token's management token (a bootstrap token by another hand). */
const DEV_TOKEN_NAME = `${BOOTSTRAP_TOKEN_NAME} (dev)`;
