// RaftClientRequestProto's `message` (field 2, ClientMessageEntryProto{content = 1}) written by
// hand between the encoded `rpcRequest` (field 1) and the encoded type (fields 3 and up), around
// the content's pieces without copying them: protobufjs would copy a 4 MiB content into its own
// buffer first, and the pieces into one more before that. The bytes are those protobufjs (and
// Java) write: fields in number order.

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
 * The request as pieces: `head` (the encoded field 1) with the message's tags and lengths after
 * it in one small buffer, then `pieces` as they are (not copied), then `tail` (the encoded fields
 * after 2). An empty content is an empty message, as protobufjs writes `{ message: {} }`.
 */
export function requestPiecesWithContent(
  head: Uint8Array,
  pieces: readonly Uint8Array[],
  tail: Uint8Array,
): Uint8Array[] {
  let contentBytes = 0;
  for (const p of pieces) contentBytes += p.length;
  const entryBytes = contentBytes > 0 ? 1 + varintBytes(contentBytes) + contentBytes : 0;
  const lead = Buffer.allocUnsafe(
    head.length + 1 + varintBytes(entryBytes) + (contentBytes > 0 ? 1 + varintBytes(contentBytes) : 0),
  );
  lead.set(head, 0);
  let at = head.length;
  lead[at++] = MESSAGE_TAG;
  at = writeVarint(lead, at, entryBytes);
  if (contentBytes > 0) {
    lead[at++] = CONTENT_TAG;
    writeVarint(lead, at, contentBytes);
  }
  const out: Uint8Array[] = [lead];
  for (const p of pieces) if (p.length > 0) out.push(p);
  if (tail.length > 0) out.push(tail);
  return out;
}
