// Which CA the client trusts on the datanodes' TLS ports, and where it comes from. Ozone's client
// turns datanode TLS on with `ozone.security.enabled` and `hdds.grpc.tls.enabled` together
// (SecurityConfig.isGrpcTlsEnabled) and trusts the SCM's CA certificates that the OM hands out in
// its service list (ServiceListResponse.caCerts, else caCertificate). Here the CA may also come
// from the `tls` option (a file, or PEM text); only when neither gives one is the OM asked, once,
// before the first datanode connection.
import { OzoneTlsConfigError } from '../../ozone-errors.js';
import type { ClientTlsOptions } from './channel-options.js';

/** Whether the datanode ports speak TLS: the `tls` option, or the cluster's own settings. */
export function datanodeTlsEnabled(
  tls: ClientTlsOptions | undefined,
  lookup: (key: string) => string | undefined,
): boolean {
  if (tls !== undefined) return true;
  const on = (key: string): boolean => (lookup(key) ?? 'false').trim().toLowerCase() === 'true';
  return on('ozone.security.enabled') && on('hdds.grpc.tls.enabled');
}

/** What the OM's service list says of the CA (`caCerts`, `caCertificate`), PEM each. */
export interface OmCaCertificates {
  caCerts: readonly string[];
  caCertificate: string | undefined;
}

/**
 * The TLS settings of the datanode channels. `options` is the one object every channel, the
 * Ratis clients and the read workers are given; when it names no CA, {@link ready} fills in
 * `ca` from the OM before any of them connects.
 */
export class DatanodeTrust {
  readonly options: ClientTlsOptions | undefined;
  #loading: Promise<void> | undefined;

  constructor(
    enabled: boolean,
    tls: ClientTlsOptions | undefined,
    private readonly fetchFromOm: () => Promise<OmCaCertificates>,
    private readonly omAddress: string,
  ) {
    this.options = enabled ? { ...tls } : undefined;
  }

  /** Whether the CA is still to be asked of the OM. */
  get pending(): boolean {
    const o = this.options;
    return o !== undefined && o.caFile === undefined && o.ca === undefined;
  }

  /** Resolves once the channels know their CA; asks the OM the first time (again after a failure). */
  ready(): Promise<void> {
    if (!this.pending) return Promise.resolve();
    this.#loading ??= this.#load().finally(() => {
      this.#loading = undefined;
    });
    return this.#loading;
  }

  async #load(): Promise<void> {
    const answer = await this.fetchFromOm();
    const pems =
      answer.caCerts.length > 0 ? answer.caCerts : answer.caCertificate ? [answer.caCertificate] : [];
    if (pems.length === 0)
      throw new OzoneTlsConfigError(
        `the datanodes use TLS but the OM at ${this.omAddress} sent no CA certificate in its service list; give tls.caFile`,
      );
    const options = this.options as ClientTlsOptions;
    options.ca = pems.join('\n');
  }
}
