// The OM call path above the transports: the OMRequest envelope Java's client puts around every
// call, one logical call through the HA proxy, and the OMResponse checks.
import { OmStatusError, OzoneProtocolError } from '../../ozone-errors.js';
import { CLIENT_VERSION } from '../grpc/om-transport.js';
import { encodeMessage } from '../proto/one-pass-writer.js';
import { takeField } from '../proto/proto-cursor.js';
import { has, om, type hadoop } from '../proto/wire.js';
import type { OmFailoverProxy } from './om-failover-proxy.js';
import type { OmMetrics } from './om-metrics.js';
import { isOwnEarlierEffect } from './om-resend-tolerance.js';

export type OmBody = Omit<
  hadoop.ozone.IOMRequest,
  'cmdType' | 'clientId' | 'userInfo' | 'version' | 'traceID' | 'layoutVersion'
>;

/** The string form of a 16-byte client id, as Java prints a Ratis ClientId (a UUID). */
function uuidText(bytes: Uint8Array): string {
  const hex = Buffer.from(bytes).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export class OmClient {
  /** `OMRequest.clientId`: the client's 16-byte id as a UUID string. */
  readonly clientId: string;
  readonly #proxy: OmFailoverProxy;
  readonly #userName: string;
  readonly metrics: OmMetrics;

  constructor(proxy: OmFailoverProxy, userName: string, metrics: OmMetrics) {
    this.#proxy = proxy;
    this.#userName = userName;
    this.metrics = metrics;
    this.clientId = uuidText(proxy.clientId);
  }

  get proxy(): OmFailoverProxy {
    return this.#proxy;
  }

  /** The address calls go to first (errors name it). */
  get address(): string {
    return this.#proxy.currentAddress;
  }

  /** The user calls are made as. */
  get userName(): string {
    return this.#userName;
  }

  /** Builds the request envelope (exported for the golden-byte tests). */
  envelope(cmdType: keyof typeof om.Type, body: OmBody): hadoop.ozone.IOMRequest {
    return {
      cmdType: om.Type[cmdType],
      clientId: this.clientId,
      userInfo: { userName: this.#userName },
      version: CLIENT_VERSION,
      ...body,
    };
  }

  /** Sends one OMRequest; resolves with the OMResponse when its status is OK, else throws an OmStatusError. */
  async submit(cmdType: keyof typeof om.Type, body: OmBody): Promise<hadoop.ozone.OMResponse> {
    return (await this.#exchange(cmdType, body, undefined)).response;
  }

  /**
   * As `submit`, with the OMResponse's field `field` (a response body) left undecoded: its bytes
   * come back beside the rest, for a hand decoder (`taken` undefined when the OM sent none), with
   * the address of the OM that answered for its errors.
   */
  async submitTaking(
    cmdType: keyof typeof om.Type,
    body: OmBody,
    field: number,
  ): Promise<{ response: hadoop.ozone.OMResponse; taken: Buffer | undefined; address: string }> {
    return this.#exchange(cmdType, body, field);
  }

  async #exchange(
    cmdType: keyof typeof om.Type,
    body: OmBody,
    take: number | undefined,
  ): Promise<{ response: hadoop.ozone.OMResponse; taken: Buffer | undefined; address: string }> {
    const request = encodeMessage(om.OMRequest, this.envelope(cmdType, body));
    const { response: raw, node, resentAfterUnknownOutcome } = await this.#proxy.call(request);
    let response: hadoop.ozone.OMResponse;
    let taken: Buffer | undefined;
    try {
      let rest = raw;
      if (take !== undefined)
        ({ rest, taken } = takeField(
          Buffer.isBuffer(raw) ? raw : Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength),
          take,
        ));
      response = om.OMResponse.decode(rest);
    } catch (cause) {
      throw new OzoneProtocolError(
        node.address,
        `undecodable OMResponse to ${cmdType}: ${(cause as Error).message}`,
        cause,
      );
    }
    if (response.cmdType !== om.Type[cmdType]) {
      throw new OzoneProtocolError(
        node.address,
        `OMResponse for ${om.Type[response.cmdType] ?? response.cmdType} answered ${cmdType}`,
      );
    }
    if (response.status !== om.Status.OK) {
      const status = om.Status[response.status] ?? `status ${response.status}`;
      if (resentAfterUnknownOutcome && isOwnEarlierEffect(cmdType, status)) {
        this.metrics.resendTolerated(cmdType);
        return {
          response: om.OMResponse.create({ cmdType: response.cmdType, status: om.Status.OK, success: true }),
          taken: undefined,
          address: node.address,
        };
      }
      throw new OmStatusError(cmdType, status, has(response, 'message') ? response.message : '');
    }
    return { response, taken, address: node.address };
  }

  close(): void {
    this.metrics.unwatchLeader();
    this.#proxy.close();
  }
}
