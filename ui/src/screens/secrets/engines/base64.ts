/** UTF-8 text to and from base64, as transit's `plaintext` and `input` fields take it. */

/** `text`'s UTF-8 bytes in base64. */
export function textToBase64(text: string): string {
  let bin = '';
  for (const b of new TextEncoder().encode(text)) bin += String.fromCharCode(b);
  return btoa(bin);
}

/** The UTF-8 text of base64 `b64` (invalid sequences become U+FFFD). */
export function base64ToText(b64: string): string {
  return new TextDecoder().decode(Uint8Array.from(atob(b64), (c) => c.charCodeAt(0)));
}
