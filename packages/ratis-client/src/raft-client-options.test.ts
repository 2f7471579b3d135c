import {
  DEFAULT_RAFT_CLIENT_OPTIONS,
  resolveRaftClientOptions,
  type RaftClientOptions,
} from './raft-client-options.js';

const GROUP = '00112233-4455-4677-8899-aabbccddeeff';
const base: RaftClientOptions = {
  groupId: GROUP,
  peers: [
    { id: 'a', address: '127.0.0.1:1' },
    { id: 'b', address: '127.0.0.1:2' },
  ],
};
const resolve = (o: Partial<RaftClientOptions>) =>
  resolveRaftClientOptions({ ...base, ...o }, () => '11111111-2222-4333-8444-555555555555');

describe('resolveRaftClientOptions', () => {
  it("keeps a peer's DataStream address, and leaves it out where none is given", () => {
    const o = resolve({
      peers: [
        { id: 'a', address: 'x:1', dataStreamAddress: 'x:9' },
        { id: 'b', address: 'x:2' },
      ],
    });
    expect(o.peers).toEqual([
      { id: 'a', address: 'x:1', dataStreamAddress: 'x:9' },
      { id: 'b', address: 'x:2' },
    ]);
  });

  it("fills in Ozone's defaults, the first peer as leader and a random client id", () => {
    const o = resolve({});
    expect(o).toMatchObject({
      ...DEFAULT_RAFT_CLIENT_OPTIONS,
      leaderId: 'a',
      clientId: '11111111-2222-4333-8444-555555555555',
    });
    expect(DEFAULT_RAFT_CLIENT_OPTIONS).toMatchObject({
      maxOutstandingRequests: 32,
      rpcRequestTimeoutMs: 60_000,
      rpcWatchRequestTimeoutMs: 180_000,
      writeTimeoutMs: 300_000,
      watchTimeoutMs: 180_000,
      dataStreamOutstandingRequests: 100,
      dataStreamRequestTimeoutMs: 10_000,
    });
    expect(Object.isFrozen(DEFAULT_RAFT_CLIENT_OPTIONS)).toBe(true);
  });

  it.each([
    [{ groupId: 'not-a-uuid' }, 'groupId'],
    [{ peers: [] }, 'peers'],
    [{ peers: [{ id: '', address: 'x:1' }] }, 'peers[0].id'],
    [{ peers: [{ id: 'a', address: '' }] }, 'peers[0].address'],
    [
      {
        peers: [
          { id: 'a', address: 'x:1' },
          { id: 'a', address: 'x:2' },
        ],
      },
      'peers[1].id',
    ],
    [{ leaderId: 'c' }, 'leaderId'],
    [{ clientId: '00000000-0000-0000-0000-000000000000' }, 'clientId'],
    [{ clientId: 'abc' }, 'clientId'],
    [{ maxOutstandingRequests: 0 }, 'maxOutstandingRequests'],
    [{ writeTimeoutMs: 1.5 }, 'writeTimeoutMs'],
    [{ retryPauseMs: -1 }, 'retryPauseMs'],
    [{ maxMessageBytes: 10 }, 'maxMessageBytes'],
    [{ peers: [{ id: 'a', address: 'x:1', dataStreamAddress: '' }] }, 'peers[0].dataStreamAddress'],
    [{ dataStreamOutstandingRequests: 1 }, 'dataStreamOutstandingRequests'],
    [{ dataStreamRequestTimeoutMs: 0 }, 'dataStreamRequestTimeoutMs'],
  ] as Array<[Partial<RaftClientOptions>, string]>)('refuses %j, naming %s', (bad, option) => {
    expect(() => resolve(bad)).toThrow(
      expect.objectContaining({ code: 'ERR_INVALID_OPTION', option }) as Error,
    );
  });
});
