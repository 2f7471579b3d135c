// The KMS writes binary fields as URL-safe Base64 without padding and reads either alphabet, with
// or without padding. The client does the same, and refuses text that is not Base64 at all rather
// than letting Buffer.from silently skip the characters it does not know.

const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;

/** URL-safe Base64 without padding, as the KMS writes it. */
export function encodeBase64Url(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64url');
}

/** Decodes standard or URL-safe Base64, padded or not; `undefined` when `text` is not Base64. */
export function decodeBase64(text: string): Buffer | undefined {
  if (!BASE64.test(text) || text.replace(/=+$/, '').length % 4 === 1) return undefined;
  return Buffer.from(text, 'base64');
}
