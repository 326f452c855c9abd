/**
 * One root key of the scheduler's keyring (reference/integration.md §4 "Signing"; the
 * reference's `RootKey` / `RootKeyMeta`): a UUID key ID, the `kid` of every JWT it signs, with
 * an RSA-2048 key pair (`RS256`, the default) and an Ed25519 key pair (`EdDSA`). Stored in the
 * state table `root-keys` (state.ts `T.rootKeys`), which the state key encrypts at rest and
 * which replicates to the servers sharing the state like every table; no event is made of it
 * (events/source.ts knows no such table) and no reply carries its private halves: the list
 * shows {@link renderKeyMeta}, the JWKS {@link publicJwks}.
 *
 * States: `prepublished` (in the JWKS, not yet signing), `active` (signs; one at a time),
 * `inactive` (retired: in the JWKS until collected). Times are Unix nanoseconds, as the
 * reference's.
 *
 * @module
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync, randomUUID, type KeyObject } from 'node:crypto';

/** Signing algorithms a root key serves (the discovery document's `id_token_signing_alg_values_supported`). */
export const SIGNING_ALGS = ['RS256', 'EdDSA'] as const;
/** A signing algorithm. */
export type SigningAlg = (typeof SIGNING_ALGS)[number];

/** States of a root key (the reference's `RootKeyState` values Cairn uses). */
export type RootKeyState = 'active' | 'inactive' | 'prepublished';

/** A stored root key. The private keys are PKCS#8 PEM: they never leave the server in a reply, a log or an event. */
export interface RootKeyDoc {
  /** UUID; the `kid` of the JWTs it signs and of its JWKS entries. */
  readonly KeyID: string;
  /** Always `RS256`: what it signs with by default (the reference's root keys name their encryption algorithm here). */
  readonly Algorithm: 'RS256';
  /** Unix ns. */
  readonly CreateTime: number;
  readonly State: RootKeyState;
  /** Unix ns at which a `prepublished` key becomes active; 0 for a key made active at once. */
  readonly PublishTime: number;
  /** Unix ns at which it was retired (state `inactive`); absent otherwise. */
  readonly InactiveTime?: number;
  readonly RSAKey: string;
  readonly Ed25519Key: string;
}

/** A new root key in `state` at `nowNs`, with fresh key pairs (RSA generation takes tens of ms: leader work only). */
export function newRootKey(nowNs: number, state: RootKeyState, publishTimeNs = 0): RootKeyDoc {
  const pem = { format: 'pem', type: 'pkcs8' } as const;
  const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export(pem).toString();
  const ed = generateKeyPairSync('ed25519').privateKey.export(pem).toString();
  return { KeyID: randomUUID(), Algorithm: 'RS256', CreateTime: nowNs, State: state, PublishTime: publishTimeNs, RSAKey: rsa, Ed25519Key: ed };
}

/**
 * The key metadata the keyring routes show (the reference's `RootKeyMeta`: `KeyID`,
 * `Algorithm`, `CreateTime`, `CreateIndex`, `ModifyIndex`, `State`, `PublishTime`); never the
 * key material.
 */
export function renderKeyMeta(k: RootKeyDoc & { readonly CreateIndex: number; readonly ModifyIndex: number }): Record<string, unknown> {
  return {
    KeyID: k.KeyID,
    Algorithm: k.Algorithm,
    CreateTime: k.CreateTime,
    CreateIndex: k.CreateIndex,
    ModifyIndex: k.ModifyIndex,
    State: k.State,
    PublishTime: k.PublishTime,
  };
}

/** The private keys of a root key, parsed once (keyring.ts keeps them per key version). */
export interface LoadedKey {
  readonly id: string;
  readonly rsa: KeyObject;
  readonly ed: KeyObject;
}

/** Parses a stored key's PEM private keys. @throws when they do not parse (a corrupt document). */
export function loadKey(k: RootKeyDoc): LoadedKey {
  return { id: k.KeyID, rsa: createPrivateKey(k.RSAKey), ed: createPrivateKey(k.Ed25519Key) };
}

/**
 * The JWKS entries of a key (RFC 7517; the reference's `/.well-known/jwks.json` items): the
 * RSA public key `{use:"sig", kty:"RSA", kid, alg:"RS256", n, e}` and the Ed25519 one
 * `{use:"sig", kty:"OKP", crv:"Ed25519", kid, alg:"EdDSA", x}`, both under the key's ID.
 */
export function publicJwks(k: LoadedKey): Record<string, unknown>[] {
  const rsa = createPublicKey(k.rsa).export({ format: 'jwk' });
  const ed = createPublicKey(k.ed).export({ format: 'jwk' });
  return [
    { use: 'sig', kty: 'RSA', kid: k.id, alg: 'RS256', n: rsa.n, e: rsa.e },
    { use: 'sig', kty: 'OKP', crv: 'Ed25519', kid: k.id, alg: 'EdDSA', x: ed.x },
  ];
}
