/**
 * The documented bounds of the transit engine's inputs (docs/compatibility.md "Transit"):
 * every size a caller chooses is capped here, so a request's work and reply stay bounded
 * below the listener's body limit. The reference bounds only the request body (32 MiB by
 * default, reference/secrets-engines.md §6) and `random` (128 KiB).
 *
 * @module
 */

/** Items of one `batch_input` (encrypt, decrypt, rewrap, sign, verify, hmac). */
export const MAX_BATCH_ITEMS = 1000;
/** Bytes of one decoded `plaintext`, `input` or `associated_data`, and characters of one `ciphertext`/`signature`/`hmac`. */
export const MAX_INPUT_BYTES = 4 * 1024 * 1024;
/** `random` `bytes`: the reference's own maximum (128 KiB). */
export const MAX_RANDOM_BYTES = 128 * 1024;
/** Key versions one key may keep (each rotation adds one; `trim` removes old ones). */
export const MAX_KEY_VERSIONS = 2000;
/** Bytes of a decoded `backup` given to `restore`. */
export const MAX_BACKUP_BYTES = 16 * 1024 * 1024;
