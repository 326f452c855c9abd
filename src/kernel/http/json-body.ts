/**
 * Parsing a request body as JSON, for every service (secrets, gateway controller API,
 * discovery, scheduler), under one nesting limit.
 *
 * Why a limit: V8's `JSON.parse` copes with any depth, but what runs after it recurses —
 * ajv validation, `structuredClone`, the services' own walkers and `JSON.stringify` when a
 * document is stored or rendered — and overflowed the stack at about 2,500 levels (a 500
 * after the request had passed authentication, or none was needed: `sys/unseal`, logins).
 * The check is a single loop over the text before `JSON.parse`, so nothing deep is built.
 *
 * {@link MAX_JSON_DEPTH} is 128: bodies the reference products' clients send nest less
 * than 15 levels (a scheduler job, the deepest), KV data included in practice, and 128
 * keeps every recursive step far from the stack. Vault's own limit (listener
 * `max_json_depth`, default 500) is higher; docs/compatibility.md records the difference.
 *
 * @module
 */

/** Deepest nesting of objects and arrays accepted in a request body. */
export const MAX_JSON_DEPTH = 128;

/** Text of the error for a body nested deeper than {@link MAX_JSON_DEPTH} (Vault's words). */
export const JSON_TOO_DEEP = `JSON input exceeds allowed nesting depth (${MAX_JSON_DEPTH})`;

/**
 * Parses `body` (UTF-8 JSON) after checking its nesting depth.
 *
 * @throws SyntaxError with `JSON.parse`'s message for malformed JSON, or
 *   {@link JSON_TOO_DEEP} when objects and arrays nest deeper than {@link MAX_JSON_DEPTH};
 *   callers put the message in their service's 400.
 */
export function parseJsonBody(body: Buffer | string): unknown {
  const text = typeof body === 'string' ? body : body.toString('utf8');
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) throw new SyntaxError(JSON_TOO_DEEP);
  return JSON.parse(text) as unknown;
}

/**
 * Whether `[`/`{` outside strings nest deeper than `max`. Exact for valid JSON; for
 * anything else `JSON.parse` fails anyway, before building anything deep.
 */
function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // `\`: the next character is escaped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true;
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    }
  }
  return false;
}
