// SASL GSSAPI's security-layer negotiation (RFC 4752 §3.1) and the layer itself, for both ends:
// after the context is established the server wraps 4 bytes (the layers it allows as a bit mask,
// then its largest receive buffer, 3 bytes big-endian); the client answers with exactly one
// layer and its own buffer size, wrapped. With integrity or confidentiality every later message
// is a GSS wrap token: sequence-numbered, so a replayed or reordered message fails to unwrap.
import type { SaslSecurityLayer } from '../../sasl-mechanism.js';
import type { SaslQop } from './digest-md5.js';
import type { GssContext } from './gss-native.js';

/** RFC 4752's layer bits, and the QOP each stands for. */
export const GSS_LAYER: Readonly<Record<SaslQop, number>> = Object.freeze({
  auth: 1,
  'auth-int': 2,
  'auth-conf': 4,
});

/**
 * What a wrap token adds to its message at most, with room to spare: 60 bytes for AES with
 * HMAC-SHA1 (token header, confounder, the encrypted header, checksum), a little more for the
 * SHA-2 types, less for the older ones.
 */
const GSS_WRAP_OVERHEAD = 256;

/** The receive buffer this side advertises with a layer (the largest 3 bytes hold). */
export const GSS_MAX_BUFFER = 0xffffff;

/** The 4 bytes of a layer offer or choice. */
export function encodeLayerMessage(layers: number, maxBuffer: number): Uint8Array {
  return Uint8Array.of(layers, (maxBuffer >>> 16) & 0xff, (maxBuffer >>> 8) & 0xff, maxBuffer & 0xff);
}

/** Reads a layer offer or choice; `undefined` when it is not 4 bytes (a client may append an authzid). */
export function decodeLayerMessage(
  bytes: Uint8Array,
  allowAuthzid = false,
): { layers: number; maxBuffer: number; authzid: string } | undefined {
  if (bytes.length < 4 || (!allowAuthzid && bytes.length !== 4)) return undefined;
  return {
    layers: bytes[0] as number,
    maxBuffer: ((bytes[1] as number) << 16) | ((bytes[2] as number) << 8) | (bytes[3] as number),
    authzid: Buffer.from(bytes.subarray(4)).toString('utf8'),
  };
}

/** The QOPs a layer mask allows, strongest last. */
export function qopsOf(layers: number): SaslQop[] {
  return (Object.keys(GSS_LAYER) as SaslQop[]).filter((q) => (layers & GSS_LAYER[q]) !== 0);
}

/**
 * The layer of an established context with QOP `auth-int` (`confidential` false) or `auth-conf`;
 * `peerMaxBuffer` is the receive buffer the other end announced, which bounds what one message
 * carries.
 * Incoming messages must carry what was negotiated: a peer that sends plain-integrity tokens on a
 * confidential layer is refused, not read.
 */
export function gssSecurityLayer(
  context: GssContext,
  confidential: boolean,
  peerMaxBuffer = 0,
): SaslSecurityLayer {
  return {
    // The peer's buffer holds whole wrap tokens; 0 announces none (RFC 4752), so no limit.
    ...(peerMaxBuffer > GSS_WRAP_OVERHEAD ? { maxWrapBytes: peerMaxBuffer - GSS_WRAP_OVERHEAD } : {}),
    wrap: (plain) => context.wrap(plain, confidential),
    unwrap: (wrapped) => {
      const { data, confidential: sealed } = context.unwrap(wrapped);
      if (confidential && !sealed) throw new Error('a message on a confidential layer was not encrypted');
      return data;
    },
  };
}
