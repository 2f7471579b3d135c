// Builders of Kerberos wire bytes for unit tests: keytab files and GSS initial tokens written
// from their formats (MIT keytab 0x0502; RFC 4121 / RFC 4178 / RFC 4120 DER). No key in them is
// real; the integration tests use tokens and keytabs of a real KDC.

const counted = (text: string): Buffer => {
  const bytes = Buffer.from(text, 'utf8');
  const length = Buffer.alloc(2);
  length.writeUInt16BE(bytes.length);
  return Buffer.concat([length, bytes]);
};

/** One keytab entry of `principal` (`a/b@R`), with a dummy key. */
function keytabEntry(principal: string): Buffer {
  const [name, realm] = principal.split('@') as [string, string];
  const components = name.split('/');
  const count = Buffer.alloc(2);
  count.writeUInt16BE(components.length);
  const tail = Buffer.alloc(4 + 4 + 1 + 2);
  tail.writeUInt32BE(1, 0); // KRB5_NT_PRINCIPAL
  tail.writeUInt32BE(1_700_000_000, 4);
  tail.writeUInt8(1, 8);
  tail.writeUInt16BE(18, 9); // aes256-cts
  const body = Buffer.concat([
    count,
    counted(realm),
    ...components.map(counted),
    tail,
    counted('k'.repeat(32)),
  ]);
  const size = Buffer.alloc(4);
  size.writeInt32BE(body.length);
  return Buffer.concat([size, body]);
}

/** A keytab file of these principals, with a hole between the first two. */
export function keytabBytes(principals: readonly string[]): Buffer {
  const hole = Buffer.alloc(4 + 8);
  hole.writeInt32BE(-8);
  const entries = principals.map(keytabEntry);
  return Buffer.concat([
    Buffer.from([0x05, 0x02]),
    ...(entries.length > 1 ? [entries[0] as Buffer, hole, ...entries.slice(1)] : entries),
  ]);
}

function der(tag: number, ...content: Buffer[]): Buffer {
  const body = Buffer.concat(content);
  let length: Buffer;
  if (body.length < 0x80) length = Buffer.from([body.length]);
  else if (body.length < 0x100) length = Buffer.from([0x81, body.length]);
  else length = Buffer.from([0x82, body.length >> 8, body.length & 0xff]);
  return Buffer.concat([Buffer.from([tag]), length, body]);
}
const general = (text: string): Buffer => der(0x1b, Buffer.from(text, 'utf8'));
const int = (n: number): Buffer => der(0x02, Buffer.from([n]));
const KRB5_OID = Buffer.from([0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x12, 0x01, 0x02, 0x02]);
const SPNEGO_OID = Buffer.from([0x06, 0x06, 0x2b, 0x06, 0x01, 0x05, 0x05, 0x02]);

/** A raw Kerberos GSS initial token whose ticket targets `service` (`HTTP/host@R`); `tokenId` 0100 = AP-REQ. */
export function krb5Token(service: string, tokenId = Buffer.from([0x01, 0x00])): Buffer {
  const [name, realm] = service.split('@') as [string, string];
  const sname = der(0x30, der(0xa0, int(3)), der(0xa1, der(0x30, ...name.split('/').map(general))));
  const ticket = der(
    0x61,
    der(
      0x30,
      der(0xa0, int(5)),
      der(0xa1, general(realm)),
      der(0xa2, sname),
      der(0xa3, der(0x30, der(0xa2, der(0x04, Buffer.alloc(40))))),
    ),
  );
  const apReq = der(
    0x6e,
    der(
      0x30,
      der(0xa0, int(5)),
      der(0xa1, int(14)),
      der(0xa2, der(0x03, Buffer.from([0, 0x20, 0, 0, 0]))),
      der(0xa3, ticket),
      der(0xa4, der(0x30, der(0xa2, der(0x04, Buffer.alloc(60))))),
    ),
  );
  return der(0x60, KRB5_OID, tokenId, apReq);
}

/** The same wrapped in SPNEGO's NegTokenInit. */
export function spnegoToken(inner: Buffer): Buffer {
  const init = der(0x30, der(0xa0, der(0x30, KRB5_OID)), der(0xa2, der(0x04, inner)));
  return der(0x60, SPNEGO_OID, der(0xa0, init));
}
