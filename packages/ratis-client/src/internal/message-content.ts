// RaftClientRequestProto's `message` (field 2, ClientMessageEntryProto{content = 1}) written by
// hand between the encoded `rpcRequest` (field 1) and the encoded type (fields 3 and up), straight
// from the content's pieces: protobufjs would copy a 4 MiB content into its own buffer first, and
// the pieces into one more before that. The bytes are those protobufjs (and Java) write: fields
// in number order.

const MESSAGE_TAG = (2 << 3) | 2;
const CONTENT_TAG = (1 << 3) | 2;

function varintBytes(n: number): number {
  let bytes = 1;
  while (n >= 0x80) {
    n = Math.floor(n / 0x80);
    bytes++;
  }
  return bytes;
}

function writeVarint(out: Buffer, at: number, n: number): number {
  while (n >= 0x80) {
    out[at++] = (n & 0x7f) | 0x80;
    n = Math.floor(n / 0x80);
  }
  out[at++] = n;
  return at;
}

/**
 * `head` (the encoded field 1), the message carrying `pieces` as its content, then `tail` (the
 * encoded fields after 2), in one buffer: each piece copied once. An empty content is an empty
 * message, as protobufjs writes `{ message: {} }`.
 */
export function withMessageContent(
  head: Uint8Array,
  pieces: readonly Uint8Array[],
  tail: Uint8Array,
): Buffer {
  let contentBytes = 0;
  for (const p of pieces) contentBytes += p.length;
  const entryBytes = contentBytes > 0 ? 1 + varintBytes(contentBytes) + contentBytes : 0;
  const out = Buffer.allocUnsafe(head.length + 1 + varintBytes(entryBytes) + entryBytes + tail.length);
  out.set(head, 0);
  let at = head.length;
  out[at++] = MESSAGE_TAG;
  at = writeVarint(out, at, entryBytes);
  if (contentBytes > 0) {
    out[at++] = CONTENT_TAG;
    at = writeVarint(out, at, contentBytes);
    for (const p of pieces) {
      out.set(p, at);
      at += p.length;
    }
  }
  out.set(tail, at);
  return out;
}
