import type { MetricsRegistry } from '@fastpath/core';

/** The read series of one client, labelled `client` (its client id) as its OM series are. */
export class ReadMetrics {
  readonly #client: string;
  readonly #tokenRefreshes;

  constructor(registry: MetricsRegistry, client: string) {
    this.#client = client;
    this.#tokenRefreshes = registry.counter(
      'ozone_client_block_token_refreshes_total',
      'Key lookups a read made again at the OM because a datanode refused a block token',
      ['client'],
    );
  }

  /** A read looked its key up again for new block tokens. */
  blockTokenRefresh(): void {
    this.#tokenRefreshes.labels(this.#client).inc();
  }
}
