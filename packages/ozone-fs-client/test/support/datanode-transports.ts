import type { DatanodeTransport } from '@fastpath/ozone-fs-client';

/** Every value of `ozone.client.datanode.transport`: read tests run in each. */
export const DATANODE_TRANSPORTS: readonly DatanodeTransport[] = [
  'stream-pool',
  'call-per-request',
  'http2-stream-pool',
  'socket-stream-pool',
];
