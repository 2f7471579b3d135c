// The OM call path above the transports: the OMRequest envelope Java's client puts around every
// call, one logical call through the HA proxy, and the OMResponse checks.
import { OmStatusError, OzoneProtocolError } from '../../ozone-errors.js';
import { CLIENT_VERSION } from '../grpc/om-transport.js';
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

  /** The user and the address calls go to first (errors name it). */
  get options(): { readonly address: string; readonly userName: string } {
    return { address: this.#proxy.currentAddress, userName: this.#userName };
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
    const request = om.OMRequest.encode(this.envelope(cmdType, body)).finish();
    const { response: raw, node, resentAfterUnknownOutcome } = await this.#proxy.call(request);
    let response: hadoop.ozone.OMResponse;
    try {
      response = om.OMResponse.decode(raw);
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
        return om.OMResponse.create({ cmdType: response.cmdType, status: om.Status.OK, success: true });
      }
      throw new OmStatusError(cmdType, status, has(response, 'message') ? response.message : '');
    }
    return response;
  }

  close(): void {
    this.metrics.unwatchLeader();
    this.#proxy.close();
  }
}
