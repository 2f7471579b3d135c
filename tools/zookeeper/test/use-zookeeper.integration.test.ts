import { zkCreate, zkExists } from '../src/index.js';
import { useZooKeeper, type TestZooKeeperClient } from '../src/jest.js';

// The suite setup every ZooKeeper-backed test uses: one server for the suite, fresh paths, and
// clients closed after their test (or after the suite, for one made in beforeAll).
const zk = useZooKeeper({ fixture: { heapMb: 128 } });
let suiteClient: TestZooKeeperClient;
let testClient: TestZooKeeperClient | undefined;
beforeAll(async () => {
  suiteClient = await zk.client();
});

describe('useZooKeeper', () => {
  it('serves a running fixture and paths no other call returns', async () => {
    expect(zk.connectString).toBe(zk.fixture.connectString);
    const [a, b] = [zk.uniquePath('x'), zk.uniquePath('x')];
    expect(a).not.toBe(b);
    expect(a).toMatch(new RegExp(`^fastpath-x-${process.pid}-\\d+$`));
    testClient = await zk.client();
    await zkCreate(testClient, `/${a}`, 'here');
    expect(await zkExists(suiteClient, `/${a}`)).not.toBeNull();
    expect(testClient.getState().name).toBe('SYNC_CONNECTED');
  });

  it('closed the previous test’s client after it, and keeps the suite’s client open', () => {
    expect(testClient?.getState().name).toBe('DISCONNECTED');
    expect(suiteClient.getState().name).toBe('SYNC_CONNECTED');
  });
});
