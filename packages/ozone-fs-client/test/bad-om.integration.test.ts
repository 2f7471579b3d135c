// Bad answers from the OM: a typed error for each, retriable only where a retry can help, never
// a hang (every OM call has a deadline); the answers that are not answers on both ways to the
// OM's gRPC service (fastpath's own HTTP/2 session, grpc-js).
import { createServer, type AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import {
  createOzoneClient,
  OM_STATUS_ERRORS,
  type OmGrpcChannel,
  type OzoneClient,
} from '@fastpath/ozone-fs-client';
import { startMiniOzoneCluster, type MiniOzoneCluster } from '@fastpath/ozone-fs-client/testing';

let cluster: MiniOzoneCluster;
let client: OzoneClient;
/** Both ways to the OM's gRPC service (`ozone.client.om.grpc.channel`). */
const OM_GRPC_CHANNELS: readonly OmGrpcChannel[] = ['http2', 'grpc-js', 'socket'];

beforeAll(async () => {
  cluster = await startMiniOzoneCluster({ datanodes: 1 });
  client = createOzoneClient({ omAddress: cluster.omAddress, omTimeoutMs: 1500 });
  await client.createVolume('vol1');
});
afterEach(() => cluster.clearFaults());
afterAll(async () => {
  client?.close();
  await cluster?.close();
});

describe('OM statuses', () => {
  it.each(Object.entries(OM_STATUS_ERRORS))(
    '%s → its own code and retriable flag',
    async (status, expected) => {
      cluster.om.injectFault({ command: 'InfoVolume', times: 1, status: status as never });
      const err = await client.getVolume('vol1').catch((e: unknown) => e);
      expect(err).toMatchObject({
        code: expected.code,
        retriable: expected.retriable,
        status,
        omMessage: 'injected',
        operation: 'InfoVolume',
      });
    },
  );

  it('a status without a code of its own is ERR_OZONE_OM_ERROR naming it', async () => {
    cluster.om.injectFault({ command: 'InfoVolume', times: 1, status: 'TENANT_NOT_FOUND' });
    await expect(client.getVolume('vol1')).rejects.toMatchObject({
      code: 'ERR_OZONE_OM_ERROR',
      status: 'TENANT_NOT_FOUND',
    });
  });
});

describe.each(OM_GRPC_CHANNELS)('OM answers that are not answers (gRPC over %s)', (channel) => {
  let client: OzoneClient;
  beforeAll(() => {
    client = createOzoneClient({
      omAddress: cluster.omAddress,
      omTimeoutMs: 1500,
      config: { omGrpcChannel: channel },
    });
  });
  afterAll(() => client?.close());

  it('garbage bytes: ERR_OZONE_PROTOCOL', async () => {
    cluster.om.injectFault({ command: 'InfoVolume', response: 'garbage' });
    await expect(client.getVolume('vol1')).rejects.toMatchObject({
      code: 'ERR_OZONE_PROTOCOL',
      retriable: false,
    });
  });

  it('the answer to another command: ERR_OZONE_PROTOCOL', async () => {
    cluster.om.injectFault({ command: 'InfoVolume', response: 'wrong-command' });
    await expect(client.getVolume('vol1')).rejects.toMatchObject({ code: 'ERR_OZONE_PROTOCOL' });
  });

  it('an OM exception (gRPC INTERNAL): ERR_OZONE_RPC_FAILED, not retriable', async () => {
    cluster.om.injectFault({ command: 'InfoVolume', response: 'grpc-error' });
    await expect(client.getVolume('vol1')).rejects.toMatchObject({
      code: 'ERR_OZONE_RPC_FAILED',
      retriable: false,
      grpcCode: 13,
    });
  });

  it('no answer: ERR_OZONE_DEADLINE_EXCEEDED, retriable, and the client still works afterwards', async () => {
    cluster.om.injectFault({ command: 'InfoVolume', times: 1, response: 'never' });
    await expect(client.getVolume('vol1')).rejects.toMatchObject({
      code: 'ERR_OZONE_DEADLINE_EXCEEDED',
      retriable: true,
    });
    expect((await client.getVolume('vol1')).name).toBe('vol1');
  });

  it('a body missing from an OK answer: ERR_OZONE_PROTOCOL', async () => {
    cluster.om.injectFault({ command: 'InfoVolume', times: 1, status: 'OK' });
    await expect(client.getVolume('vol1')).rejects.toMatchObject({ code: 'ERR_OZONE_PROTOCOL' });
  });

  it('no OM listening: ERR_OZONE_UNAVAILABLE, retriable, within the deadline', async () => {
    const address = await closedPort();
    const lonely = createOzoneClient({
      omAddress: address,
      omTimeoutMs: 1500,
      config: { omGrpcChannel: channel },
    });
    try {
      await expect(lonely.listVolumes()).rejects.toMatchObject({
        code: 'ERR_OZONE_UNAVAILABLE',
        retriable: true,
      });
    } finally {
      lonely.close();
    }
  });
});

/** `127.0.0.1:<port>` where nothing listens (a port just released). */
async function closedPort(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `127.0.0.1:${port}`;
}
