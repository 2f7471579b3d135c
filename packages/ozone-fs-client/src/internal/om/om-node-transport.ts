/**
 * Who a call is, as the OM's retry cache knows it: the client's 16-byte id (one per OzoneClient,
 * shared by its transports to every OM), the call id (one per logical call, kept through every
 * re-send and failover) and how many times it was sent before. Over Hadoop RPC these go into the
 * request header and let the OM apply a re-sent write once; over gRPC the OM ignores them (its
 * gRPC server makes up a random client id per request).
 */
export interface OmCallIdentity {
  readonly clientId: Uint8Array;
  readonly callId: number;
  readonly retryCount: number;
}

/**
 * Sends one encoded OMRequest to one OM node and answers the encoded OMResponse. A failure
 * before an answer (refused, dropped, timed out, or an exception the OM sent instead of an
 * OMResponse) rejects with the transport's own typed error; `classifyOmFailure` tells the
 * failover layer what each means. Implementations: the gRPC transport (`OzoneManagerService/
 * submitRequest`) and, next, Hadoop RPC (`OzoneManagerProtocol.submitRequest`).
 */
export interface OmNodeTransport {
  /** `host:port` this transport reaches, for errors and `client.omLeader`. */
  readonly address: string;
  send(request: Uint8Array, call: OmCallIdentity): Promise<Uint8Array>;
  close(): void;
}
