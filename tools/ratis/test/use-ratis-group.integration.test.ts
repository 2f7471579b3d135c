import { useRatisGroup } from '@fastpath/ratis-fixture/jest';

jest.setTimeout(180_000);

// One peer keeps this suite cheap; what is tested is the hooks, not Ratis.
const ratis = useRatisGroup({ group: { peers: 1 } });

describe('useRatisGroup', () => {
  it('gives the suite a running group (this test leaves its one peer stopped)', async () => {
    expect(await ratis.group.leaderId()).toBe('peer-1');
    await ratis.group.pausePeer('peer-1');
    expect(ratis.group.peerStatus('peer-1').state).toBe('paused');
    await ratis.group.stopPeer('peer-1');
    expect(ratis.group.peerStatus('peer-1').state).toBe('stopped');
  });

  it('brings every peer back before the next test', async () => {
    expect(ratis.group.peerStatus('peer-1').state).toBe('running');
    expect(await ratis.group.leaderId()).toBe('peer-1');
  });
});
