// The bytes a client writes (Hadoop RPC spec §1.1-§1.3, §2.1, §2.2): the connection preamble, and
// frames of `uint32 length | delimited RpcRequestHeaderProto | delimited payload(s)`.
import Long from 'long';
import { rpc, type hadoop } from './proto/wire.js';

/** Call ids with a meaning of their own (spec §1.3). */
export const CallIds = Object.freeze({
  AUTHORIZATION_FAILED: -1,
  CONNECTION_CONTEXT: -3,
  PING: -4,
  SASL: -33,
});

/** The auth-protocol byte of the preamble: NONE (no SASL) or SASL (0xDF = −33). */
export const AUTH_PROTOCOL_BYTE = Object.freeze({ none: 0x00, sasl: 0xdf });

/** Hadoop IPC's only current version (`RpcConstants.CURRENT_VERSION`). */
export const IPC_VERSION = 9;

/** `RpcConstants.INVALID_RETRY_COUNT`: what SASL, context and ping headers carry. */
export const NO_RETRY_COUNT = -1;

const RPC_PROTOCOL_BUFFER = 2;
const RPC_FINAL_PACKET = 0;
const EMPTY = new Uint8Array(0);

/** `hrpc`, version 9, the service class, the auth protocol: 7 bytes, once per connection. */
export function preamble(authProtocol: 'none' | 'sasl', serviceClass: number): Buffer {
  return Buffer.from([0x68, 0x72, 0x70, 0x63, IPC_VERSION, serviceClass, AUTH_PROTOCOL_BYTE[authProtocol]]);
}

/** Bytes of the base-128 varint of a uint32. */
function varintLength(value: number): number {
  return value < 0x80 ? 1 : value < 0x4000 ? 2 : value < 0x200000 ? 3 : value < 0x10000000 ? 4 : 5;
}

/** Writes `value`'s varint at `at`; where it ends. */
function putVarint(out: Buffer, at: number, value: number): number {
  let x = value >>> 0;
  while (x > 0x7f) {
    out[at++] = (x & 0x7f) | 0x80;
    x >>>= 7;
  }
  out[at++] = x;
  return at;
}

/** Writes `message` varint-delimited at `at`; where it ends. */
function putDelimited(out: Buffer, at: number, message: Uint8Array): number {
  const from = putVarint(out, at, message.length);
  out.set(message, from);
  return from + message.length;
}

/** One frame: the 4-byte big-endian length, then each message varint-delimited. */
export function frame(...messages: Uint8Array[]): Buffer {
  let length = 0;
  for (const m of messages) length += varintLength(m.length) + m.length;
  const out = Buffer.allocUnsafe(4 + length);
  out.writeUInt32BE(length, 0);
  let at = 4;
  for (const m of messages) at = putDelimited(out, at, m);
  return out;
}

/** The RpcRequestHeaderProto Java's `ProtoUtil.makeRpcRequestHeader` builds: every field set. */
export function requestHeader(callId: number, clientId: Uint8Array, retryCount: number): Uint8Array {
  return rpc.RpcRequestHeaderProto.encode({
    rpcKind: RPC_PROTOCOL_BUFFER,
    rpcOp: RPC_FINAL_PACKET,
    callId,
    clientId,
    retryCount,
  }).finish();
}

/** What identifies the method of a protobuf-engine call. */
export interface MethodId {
  method: string;
  protocol: string;
  protocolVersion: number;
}

/**
 * The engine's RequestHeaderProto of each method, by protocol: the same bytes on every call of a
 * method, so encoded once (a client calls a handful of methods; past {@link MAX_CACHED_METHODS}
 * of a protocol the rest are encoded per call).
 */
const engineHeaders = new Map<string, Map<string, { version: number; bytes: Uint8Array }>>();
const MAX_CACHED_METHODS = 256;

function engineHeader(id: MethodId): Uint8Array {
  let byMethod = engineHeaders.get(id.protocol);
  const cached = byMethod?.get(id.method);
  if (cached !== undefined && cached.version === id.protocolVersion) return cached.bytes;
  const bytes = rpc.RequestHeaderProto.encode({
    methodName: id.method,
    declaringClassProtocolName: id.protocol,
    clientProtocolVersion: Long.fromNumber(id.protocolVersion, true),
  }).finish();
  if (byMethod === undefined)
    engineHeaders.set(id.protocol, (byMethod = new Map<string, { version: number; bytes: Uint8Array }>()));
  if (byMethod.size < MAX_CACHED_METHODS)
    byMethod.set(id.method, { version: id.protocolVersion, bytes: Uint8Array.from(bytes) });
  return bytes;
}

/** protobuf's sint32 zigzag: small negatives small too. */
const zigzag = (n: number): number => ((n << 1) ^ (n >> 31)) >>> 0;

/**
 * A call: request header, the engine's RequestHeaderProto, then the caller's request message,
 * written straight into one buffer, the header's fields as {@link requestHeader} encodes them (a
 * test holds them to bytes built by hand from the spec's field tables): every call pays for its
 * frame, and two encoders, their Longs and a join cost a small call more than its own message.
 */
export function callFrame(
  callId: number,
  clientId: Uint8Array,
  retryCount: number,
  id: MethodId,
  request: Uint8Array,
): Buffer {
  const engine = engineHeader(id);
  const call = zigzag(callId);
  const retry = zigzag(retryCount);
  // rpcKind (1), rpcOp (2), callId (3, sint32), clientId (4, bytes), retryCount (5, sint32).
  const header =
    2 +
    2 +
    1 +
    varintLength(call) +
    1 +
    varintLength(clientId.length) +
    clientId.length +
    1 +
    varintLength(retry);
  const length =
    varintLength(header) +
    header +
    varintLength(engine.length) +
    engine.length +
    varintLength(request.length) +
    request.length;
  const out = Buffer.allocUnsafe(4 + length);
  out.writeUInt32BE(length, 0);
  let at = putVarint(out, 4, header);
  out[at++] = 0x08;
  out[at++] = RPC_PROTOCOL_BUFFER;
  out[at++] = 0x10;
  out[at++] = RPC_FINAL_PACKET;
  out[at++] = 0x18;
  at = putVarint(out, at, call);
  out[at++] = 0x22;
  at = putVarint(out, at, clientId.length);
  out.set(clientId, at);
  at += clientId.length;
  out[at++] = 0x28;
  at = putVarint(out, at, retry);
  putDelimited(out, putDelimited(out, at, engine), request);
  return out;
}

/** The connection context (call id −3), sent once after the preamble (and SASL). */
export function contextFrame(
  clientId: Uint8Array,
  protocol: string,
  userInfo: hadoop.common.IUserInformationProto,
): Buffer {
  const context = rpc.IpcConnectionContextProto.encode({ userInfo, protocol }).finish();
  return frame(requestHeader(CallIds.CONNECTION_CONTEXT, clientId, NO_RETRY_COUNT), context);
}

/** A keep-alive: a header alone, call id −4; the server answers nothing. */
export function pingFrame(clientId: Uint8Array): Buffer {
  return frame(requestHeader(CallIds.PING, clientId, NO_RETRY_COUNT));
}

/** A SASL message (call id −33, empty client id, retry count −1, as Java's SaslRpcClient sends). */
export function saslFrame(message: hadoop.common.IRpcSaslProto): Buffer {
  return frame(requestHeader(CallIds.SASL, EMPTY, NO_RETRY_COUNT), rpc.RpcSaslProto.encode(message).finish());
}
