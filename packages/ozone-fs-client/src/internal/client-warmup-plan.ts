// What an Ozone client hands @fastpath/client-warmup (HDDS-17357's XceiverClientCreator hook): the
// datanode-side work its first read or write would otherwise do on the critical path, after the
// OM has answered. The OM path needs none of it, so it can run while the caller awaits the OM.
import { readFile } from 'node:fs/promises';
import { credentials } from '@grpc/grpc-js';
import type { WarmupPlan, WarmupStep } from '@fastpath/client-warmup';
import type { OzoneClientConfig } from '../ozone-client-config.js';
import { datanodeBlockId, getBlockRequest, readChunkRequest, type BlockRef } from './block-requests.js';
import { computeChecksums, findChecksumMismatch, CHECKSUM_TYPE_VALUES } from './checksum.js';
import type { ClientTlsOptions } from './grpc/channel-options.js';
import type { DatanodeClientManager } from './grpc/datanode-client-manager.js';
import { dn, uint64, type hadoop } from './proto/wire.js';

export const WARMUP_STEP_NAMES = Object.freeze({
  datanodeProtocol: 'datanode-protocol',
  checksum: 'checksum',
  tlsCredentials: 'tls-credentials',
});

export interface ClientWarmupInput {
  readonly config: Readonly<OzoneClientConfig>;
  readonly tls: ClientTlsOptions | undefined;
  readonly datanodes: DatanodeClientManager;
}

const SAMPLE_BLOCK: BlockRef = { containerId: 1n, localId: 1n, blockCommitSequenceId: 0n };

/** Runs the datanode codecs once each way, so V8 compiles them now rather than during the first read. */
function warmDatanodeProtocol(config: Readonly<OzoneClientConfig>): void {
  const checksumData = {
    type: CHECKSUM_TYPE_VALUES.CRC32,
    bytesPerChecksum: config.bytesPerChecksum,
    checksums: [Buffer.alloc(4)],
  };
  const chunk: hadoop.hdds.datanode.IChunkInfo = {
    chunkName: 'warmup_chunk_1',
    offset: uint64(0),
    len: uint64(1),
    checksumData,
  };
  const blockID = datanodeBlockId(SAMPLE_BLOCK);
  const requests = [
    getBlockRequest(SAMPLE_BLOCK, 'warmup'),
    readChunkRequest(SAMPLE_BLOCK, chunk, 0, 1, 'warmup'),
  ];
  for (const request of requests)
    dn.ContainerCommandRequestProto.decode(dn.ContainerCommandRequestProto.encode(request).finish());
  const responses: hadoop.hdds.datanode.IContainerCommandResponseProto[] = [
    {
      cmdType: dn.Type.GetBlock,
      result: dn.Result.SUCCESS,
      getBlock: { blockData: { blockID, chunks: [chunk] } },
    },
    {
      cmdType: dn.Type.ReadChunk,
      result: dn.Result.SUCCESS,
      readChunk: { blockID, chunkData: chunk, data: Buffer.alloc(1) },
    },
  ];
  for (const response of responses)
    dn.ContainerCommandResponseProto.decode(dn.ContainerCommandResponseProto.encode(response).finish());
}

/** Computes and verifies one sample per checksum type the first read is likely to meet. */
function warmChecksums(config: Readonly<OzoneClientConfig>): void {
  const bpc = config.bytesPerChecksum;
  const sample = Buffer.alloc(2 * bpc);
  for (const type of new Set([config.checksumType, 'CRC32' as const])) {
    if (type === 'NONE') continue;
    findChecksumMismatch(type, bpc, computeChecksums(type, bpc, sample), sample, 0);
  }
}

/**
 * The warm-up plan of one client. The TLS step is there only when the client uses TLS (the
 * source's `isSecurityEnabled() && isGrpcTlsEnabled()`) and `warmupTlsEnabled` is on: it reads the
 * CA without blocking and offers the datanode channels the credentials built from it.
 */
export function clientWarmupPlan(input: ClientWarmupInput): WarmupPlan {
  const { config, tls, datanodes } = input;
  const steps: WarmupStep[] = [
    { name: WARMUP_STEP_NAMES.datanodeProtocol, run: () => warmDatanodeProtocol(config) },
    { name: WARMUP_STEP_NAMES.checksum, run: () => warmChecksums(config) },
  ];
  if (tls && config.warmupTlsEnabled) {
    steps.push({
      name: WARMUP_STEP_NAMES.tlsCredentials,
      run: async () => {
        // A CA still to come from the OM (tls without caFile) is not known here: nothing to offer.
        const ca = tls.caFile !== undefined ? await readFile(tls.caFile) : tls.ca && Buffer.from(tls.ca);
        if (ca) datanodes.offerCredentials(credentials.createSsl(ca));
      },
    });
  }
  return { steps };
}
