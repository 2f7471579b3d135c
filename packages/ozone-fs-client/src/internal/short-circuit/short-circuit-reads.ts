// Which datanode a block stream may read short-circuit, and the per-datanode disable interval
// (Ozone's DomainSocketFactory): a datanode qualifies when its address is one of this host's,
// it reports DatanodeVersion SHORT_CIRCUIT_READS (4) or later, and no short-circuit failure on
// it is more recent than `ozone.client.read.short-circuit.disable.interval`.
import { randomBytes } from 'node:crypto';
import { networkInterfaces } from 'node:os';
import { debuglog } from 'node:util';
import type { Clock } from '@fastpath/core';
import type { OzoneClientConfig } from '../../ozone-client-config.js';
import { getBlockRequest, type BlockRef } from '../block-requests.js';
import type { DatanodeAddress } from '../pipeline.js';
import { uint64, type hadoop } from '../proto/wire.js';
import { loadUnixFd, type UnixFd, type UnixFdLoad } from '../unix-fd/unix-fd.js';
import { domainSocketGetBlock } from './domain-socket-get-block.js';
import { LocalBlockFile } from './local-block-file.js';

const debug = debuglog('fastpath-ozone');

/** DatanodeVersion SHORT_CIRCUIT_READS: the first datanode version that serves them. */
export const SHORT_CIRCUIT_DATANODE_VERSION = 4;

let localAddresses: Set<string> | undefined;

/** Whether `ip` is an address of this host (loopback included). */
export function isLocalAddress(ip: string): boolean {
  if (ip.startsWith('127.') || ip === '::1' || ip === 'localhost') return true;
  if (!localAddresses) {
    localAddresses = new Set();
    for (const list of Object.values(networkInterfaces()))
      for (const a of list ?? []) localAddresses.add(a.address);
  }
  return localAddresses.has(ip);
}

export interface ShortCircuitTarget {
  datanode: DatanodeAddress;
  socketPath: string;
}

/** What a granted short-circuit GetBlock gives a block stream. */
export interface ShortCircuitBlock {
  blockData: hadoop.hdds.datanode.IBlockData;
  file: LocalBlockFile;
}

/** One per client: the addon, the disable interval per datanode, the clientId and callIds of its requests. */
export class ShortCircuitReads {
  readonly #template: string;
  readonly #disableIntervalMs: number;
  readonly #clock: Clock;
  readonly #disabledUntil = new Map<string, number>();
  readonly #clientId = randomBytes(16);
  #callId = 0;
  #unixFd: UnixFd | null | undefined;
  readonly #load: () => UnixFdLoad;

  /** `load` finds the addon (default: the built one, loaded once per process). */
  constructor(config: Readonly<OzoneClientConfig>, clock: Clock, load: () => UnixFdLoad = loadUnixFd) {
    this.#load = load;
    this.#template = config.domainSocketPath ?? '';
    this.#disableIntervalMs = config.shortCircuitDisableIntervalMs;
    this.#clock = clock;
  }

  /** Whether this client does short-circuit reads at all (settings and the addon), known on first use. */
  get available(): boolean {
    if (this.#unixFd === undefined) {
      if (this.#template === '') {
        debug('short-circuit reads off: ozone.domain.socket.path is not set');
        this.#unixFd = null;
      } else {
        const load = this.#load();
        this.#unixFd = load.available ? load.unixFd : null;
      }
    }
    return this.#unixFd !== null;
  }

  /** The first of `datanodes` (already in the order to try) that may be read short-circuit now. */
  target(datanodes: readonly DatanodeAddress[]): ShortCircuitTarget | undefined {
    if (!this.available) return undefined;
    const now = this.#clock.monotonicMs();
    for (const d of datanodes) {
      if (d.ipAddress === undefined || !isLocalAddress(d.ipAddress)) continue;
      if ((d.currentVersion ?? 0) < SHORT_CIRCUIT_DATANODE_VERSION) continue;
      const until = this.#disabledUntil.get(d.uuid);
      if (until !== undefined) {
        if (now < until) continue;
        this.#disabledUntil.delete(d.uuid);
      }
      const port = /:(\d+)$/.exec(d.address)?.[1] ?? '';
      return { datanode: d, socketPath: this.#template.replaceAll('_PORT', port) };
    }
    return undefined;
  }

  /** Whether short-circuit is off for `uuid` now because of a recent failure. */
  isDisabled(uuid: string): boolean {
    const until = this.#disabledUntil.get(uuid);
    return until !== undefined && this.#clock.monotonicMs() < until;
  }

  /** After a failure on `datanode`: its reads go over gRPC for the disable interval. */
  disable(datanode: DatanodeAddress, reason: Error): void {
    this.#disabledUntil.set(datanode.uuid, this.#clock.monotonicMs() + this.#disableIntervalMs);
    debug(
      'short-circuit off for datanode %s for %d ms: %s',
      datanode.uuid,
      this.#disableIntervalMs,
      reason.message,
    );
  }

  /** GetBlock over the target's domain socket; the block file comes back open. */
  async getBlock(target: ShortCircuitTarget, block: BlockRef, timeoutMs: number): Promise<ShortCircuitBlock> {
    const unixFd = this.#unixFd;
    if (!unixFd) throw new Error('short-circuit reads are not available');
    const request: hadoop.hdds.datanode.IContainerCommandRequestProto = {
      ...getBlockRequest(block, target.datanode.uuid, true),
      clientId: this.#clientId,
      callId: uint64(++this.#callId),
    };
    const { blockData, fd } = await domainSocketGetBlock(unixFd, target.socketPath, request, timeoutMs);
    return { blockData, file: new LocalBlockFile(fd, target.datanode.address) };
  }
}
