// Reads the target service principal out of a client's GSS initial token, as Hadoop's
// KerberosUtil.getTokenServerName does before it lets GSS near the token: a raw Kerberos token
// (RFC 4121 framing around an AP-REQ) or one wrapped in SPNEGO's NegTokenInit (RFC 4178). Only
// the ticket's unencrypted realm and sname are read; nothing here is trusted for authentication.

/** A token that is not a GSS Kerberos initial token; the message is Hadoop's. */
export class GssTokenError extends Error {}

const KRB5_OID = '1.2.840.113554.1.2.2';
const KRB5_LEGACY_OID = '1.2.840.48018.1.2.2'; // Microsoft's mistaken encoding, still sent
const SPNEGO_OID = '1.3.6.1.5.5.2';

interface Tlv {
  readonly tag: number;
  readonly value: Buffer;
  readonly end: number;
}

function readTlv(bytes: Buffer, at: number): Tlv {
  if (at + 2 > bytes.length) throw new GssTokenError('Malformed gss token');
  const tag = bytes[at] as number;
  if ((tag & 0x1f) === 0x1f) throw new GssTokenError('Malformed gss token'); // no multi-byte tags here
  let length = bytes[at + 1] as number;
  let start = at + 2;
  if (length & 0x80) {
    const count = length & 0x7f;
    if (count === 0 || count > 4 || start + count > bytes.length)
      throw new GssTokenError('Malformed gss token');
    length = 0;
    for (let i = 0; i < count; i++) length = length * 256 + (bytes[start + i] as number);
    start += count;
  }
  const end = start + length;
  if (end > bytes.length) throw new GssTokenError('Malformed gss token');
  return { tag, value: bytes.subarray(start, end), end };
}

/** The TLVs of a constructed value, in order. */
function children(value: Buffer): Tlv[] {
  const out: Tlv[] = [];
  for (let at = 0; at < value.length;) {
    const tlv = readTlv(value, at);
    out.push(tlv);
    at = tlv.end;
  }
  return out;
}

function expect(tlv: Tlv | undefined, tag: number): Tlv {
  if (tlv === undefined || tlv.tag !== tag) throw new GssTokenError('Malformed gss token');
  return tlv;
}

function oid(value: Buffer): string {
  if (value.length === 0) throw new GssTokenError('Malformed gss token');
  const first = value[0] as number;
  const parts = [Math.floor(first / 40), first % 40];
  let n = 0;
  for (let i = 1; i < value.length; i++) {
    const b = value[i] as number;
    n = n * 128 + (b & 0x7f);
    if (!(b & 0x80)) {
      parts.push(n);
      n = 0;
    }
  }
  return parts.join('.');
}

/** The context-specific field `[n]` of a SEQUENCE's children. */
function field(fields: readonly Tlv[], n: number): Tlv | undefined {
  return fields.find((f) => f.tag === (0xa0 | n));
}

/**
 * The service principal (`HTTP/host@REALM`) a client's initial GSS token targets. Throws
 * {@link GssTokenError} with Hadoop's messages: "Malformed gss token" for anything that does not
 * parse, "Not an AP-REQ token" for a Kerberos token of another kind.
 */
export function gssTokenServerName(token: Buffer): string {
  const outer = readTlv(token, 0);
  if (outer.tag !== 0x60 || outer.end !== token.length) throw new GssTokenError('Malformed gss token');
  const mech = readTlv(outer.value, 0);
  if (mech.tag !== 0x06) throw new GssTokenError('Malformed gss token');
  const mechOid = oid(mech.value);
  const rest = outer.value.subarray(mech.end);
  if (mechOid === SPNEGO_OID) return spnegoServerName(rest);
  if (mechOid === KRB5_OID || mechOid === KRB5_LEGACY_OID) return krb5ServerName(rest);
  throw new GssTokenError('Malformed gss token');
}

function spnegoServerName(body: Buffer): string {
  // NegotiationToken ::= CHOICE { negTokenInit [0] NegTokenInit, ... }
  const init = expect(readTlv(body, 0), 0xa0);
  const fields = children(expect(readTlv(init.value, 0), 0x30).value);
  const mechToken = field(fields, 2);
  if (mechToken === undefined) throw new GssTokenError('Malformed gss token');
  const octets = expect(readTlv(mechToken.value, 0), 0x04);
  return gssTokenServerName(octets.value);
}

function krb5ServerName(body: Buffer): string {
  // RFC 4121: a two-byte token id, 01 00 for KRB_AP_REQ, then the AP-REQ itself.
  if (body.length < 2) throw new GssTokenError('Malformed gss token');
  if (body[0] !== 0x01 || body[1] !== 0x00) throw new GssTokenError('Not an AP-REQ token');
  const apReq = readTlv(body, 2);
  if (apReq.tag !== 0x6e) throw new GssTokenError('Not an AP-REQ token'); // [APPLICATION 14]
  const apFields = children(expect(readTlv(apReq.value, 0), 0x30).value);
  const ticketField = field(apFields, 3);
  if (ticketField === undefined) throw new GssTokenError('Malformed gss token');
  const ticket = expect(readTlv(ticketField.value, 0), 0x61); // [APPLICATION 1]
  const ticketFields = children(expect(readTlv(ticket.value, 0), 0x30).value);
  const realmField = field(ticketFields, 1);
  const snameField = field(ticketFields, 2);
  if (realmField === undefined || snameField === undefined) throw new GssTokenError('Malformed gss token');
  const realm = expect(readTlv(realmField.value, 0), 0x1b).value.toString('utf8'); // GeneralString
  const nameFields = children(expect(readTlv(snameField.value, 0), 0x30).value);
  const strings = field(nameFields, 1);
  if (strings === undefined) throw new GssTokenError('Malformed gss token');
  const components = children(expect(readTlv(strings.value, 0), 0x30).value).map((c) =>
    expect(c, 0x1b).value.toString('utf8'),
  );
  if (components.length === 0) throw new GssTokenError('Malformed gss token');
  return `${components.join('/')}@${realm}`;
}
