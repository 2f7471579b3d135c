import type { DatanodeTransport } from '@fastpath/ozone-fs-client';

/** Both values of `ozone.client.datanode.transport`: read tests run in each. */
export const DATANODE_TRANSPORTS: readonly DatanodeTransport[] = ['stream-pool', 'call-per-request'];
