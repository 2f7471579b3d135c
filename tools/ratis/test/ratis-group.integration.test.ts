import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { InvalidOptionError } from '@fastpath/core';
import { pollUntil } from '@fastpath/jvm-fixture';
import {
  APPEND_LOG_STATUS_QUERY,
  appendLogReadQuery,
  decodeAppendLogStatus,
  RatisFixtureStateError,
  RatisPeerCommandError,
  startRatisGroup,
  startRatisJavaClient,
  type RatisGroup,
  type RatisJavaClient,
} from '@fastpath/ratis-fixture';

// Three JVMs per group on a small machine: the suites share one group and run in order.
jest.setTimeout(300_000);

/** Pids of the fixture's peer JVMs whose command line names `dir` (their storage is under it). */
function peerJvmsUnder(dir: string): number[] {
  return execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line.includes('fastpath.ratisfixture.RatisPeerLauncher') && line.includes(dir))
    .map((line) => Number(line.trim().split(/\s+/)[0]));
}

/** The state letter of /proc/<pid>/stat: `T` once stopped by SIGSTOP. */
function processState(pid: number): string {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
}

const text = (bytes: Uint8Array): string => Buffer.from(bytes).toString('utf8');

describe('a real Ratis group', () => {
  let group: RatisGroup;
  let java: RatisJavaClient;

  beforeAll(async () => {
    group = await startRatisGroup();
    java = await startRatisJavaClient(group);
  });
  afterAll(async () => {
    await java?.close();
    await group?.stop();
  });

  it('runs one JVM per peer on distinct loopback ports, with a ready leader', async () => {
    expect(group.groupId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(group.peers.map((p) => p.id)).toEqual(['peer-1', 'peer-2', 'peer-3']);
    const ports = group.peers.map((p) => {
      expect(p.address).toMatch(/^127\.0\.0\.1:\d+$/);
      return Number(p.address.split(':')[1]);
    });
    expect(new Set(ports).size).toBe(3);
    expect(group.ratisVersion).toBe('3.2.1');
    const pids = group.peers.map((p) => group.peerStatus(p.id).pid);
    expect(new Set(pids).size).toBe(3);
    expect(peerJvmsUnder(group.rootDir).sort()).toEqual([...(pids as number[])].sort());
    expect(group.peers.map((p) => p.id)).toContain(await group.leaderId());
  });

  it('appends writes and answers status and range queries (through Ratis’s own Java client)', async () => {
    const before = decodeAppendLogStatus(await java.query(APPEND_LOG_STATUS_QUERY));
    const hello = await java.write(Buffer.from('hello'));
    expect(hello.position).toBe(before.length);
    expect(hello.index).toBe(hello.logIndex);
    expect(hello.index).toBeGreaterThan(before.lastAppliedIndex);
    const empty = await java.write(new Uint8Array(0));
    expect(empty.position).toBe(before.length + 5n);
    expect(empty.index).toBeGreaterThan(hello.index);
    const world = await java.write(Buffer.from('world!'));
    expect(world.position).toBe(before.length + 5n);

    const after = decodeAppendLogStatus(await java.query(APPEND_LOG_STATUS_QUERY));
    expect(after.length).toBe(before.length + 11n);
    expect(after.lastAppliedIndex).toBeGreaterThanOrEqual(world.index);
    const start = before.length;
    expect(text(await java.query(appendLogReadQuery(start, 1000)))).toBe('helloworld!'); // clipped
    expect(text(await java.query(appendLogReadQuery(start + 5n, 3)))).toBe('wor');
    expect((await java.query(appendLogReadQuery(after.length, 5))).byteLength).toBe(0);
    expect((await java.query(appendLogReadQuery((1n << 64n) - 1n, (1n << 64n) - 1n))).byteLength).toBe(0);
    await expect(java.query(Buffer.from('abc'))).rejects.toThrow(RatisPeerCommandError);
  });

  it('kills the leader: another is elected, writes go on; the restart keeps its storage and port', async () => {
    const oldLeader = await group.leaderId();
    const { address } = group.peers.find((p) => p.id === oldLeader) ?? { address: '' };
    await group.stopPeer(oldLeader);
    expect(group.peerStatus(oldLeader)).toMatchObject({ state: 'stopped', pid: undefined });
    const newLeader = await group.leaderId();
    expect(newLeader).not.toBe(oldLeader);
    const written = await java.write(Buffer.from('while one is down'));

    await group.restartPeer(oldLeader);
    expect(group.peerStatus(oldLeader).state).toBe('running');
    expect(group.peers.find((p) => p.id === oldLeader)?.address).toBe(address);
    // Led by the restarted peer, the group still holds every byte: its log came back from its
    // storage and caught up with what was written while it was down.
    await group.transferLeadership(oldLeader);
    expect(await group.leaderId()).toBe(oldLeader);
    const status = decodeAppendLogStatus(await java.query(APPEND_LOG_STATUS_QUERY));
    expect(status.length).toBe(written.position + 17n);
    expect(text(await java.query(appendLogReadQuery(written.position, 17)))).toBe('while one is down');
  });

  it('pauses a peer for real (SIGSTOP) and resumes it', async () => {
    const leader = await group.leaderId();
    const follower = group.peers.map((p) => p.id).find((id) => id !== leader) as string;
    await group.pausePeer(follower);
    const pid = group.peerStatus(follower).pid as number;
    expect(group.peerStatus(follower).state).toBe('paused');
    expect(processState(pid)).toBe('T');
    await java.write(Buffer.from('a majority is enough')); // two of three answer

    // A paused leader stops sending heartbeats: the others elect one of themselves.
    await group.pausePeer(leader);
    await expect(group.transferLeadership(leader)).rejects.toThrow(RatisFixtureStateError);
    await group.resumePeer(follower);
    expect(processState(pid)).not.toBe('T');
    const next = await group.leaderId();
    expect(next).not.toBe(leader);
    await group.resumePeer(leader);
    expect(group.peerStatus(leader).state).toBe('running');
    await group.transferLeadership(leader);
    expect(await group.leaderId()).toBe(leader);
  });

  it('checks ids and states before acting', async () => {
    await expect(group.stopPeer('peer-9')).rejects.toThrow(InvalidOptionError);
    await group.stopPeer('peer-3');
    await expect(group.pausePeer('peer-3')).rejects.toThrow(RatisFixtureStateError);
    await expect(group.transferLeadership('peer-3')).rejects.toThrow(RatisFixtureStateError);
    await group.restartPeer('peer-3');
  });
});

describe('stopping a group', () => {
  it('leaves no JVM and no folder behind, and refuses calls afterwards', async () => {
    const group = await startRatisGroup({ peers: 1 });
    const pid = group.peerStatus('peer-1').pid as number;
    await group.pausePeer('peer-1'); // a paused JVM is killed too
    await group.stop();
    expect(peerJvmsUnder(group.rootDir)).toEqual([]);
    expect(existsSync(`/proc/${pid}`)).toBe(false);
    expect(existsSync(group.rootDir)).toBe(false);
    expect(group.stopped).toBe(true);
    await expect(group.leaderId()).rejects.toThrow(RatisFixtureStateError);
    await expect(group.restartPeer('peer-1')).rejects.toThrow(RatisFixtureStateError);
    await group.stop(); // idempotent
  });
});

describe('a test process that dies without cleaning up', () => {
  it('leaves no peer JVM and no folder behind (SIGKILL of the process that started the group)', async () => {
    // The shell command of the package (start-group) in a plain Node process, killed once the
    // group is up: no exit handler runs, so only jvm-fixture's watchdogs can clean up.
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', '--conditions', 'development', join(__dirname, '..', 'src', 'start-group-main.ts')],
      { stdio: ['pipe', 'pipe', 'inherit'] },
    );
    const line = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout }).once('line', resolve);
      child.once('exit', (code) => reject(new Error(`start-group exited (${String(code)}) before printing`)));
    });
    const printed = JSON.parse(line) as { groupId: string; peers: unknown[]; rootDir: string };
    expect(printed.peers).toHaveLength(3);
    expect(peerJvmsUnder(printed.rootDir)).toHaveLength(3);
    child.kill('SIGKILL');
    const gone = await pollUntil(
      () =>
        Promise.resolve(
          peerJvmsUnder(printed.rootDir).length === 0 && !existsSync(printed.rootDir) ? true : undefined,
        ),
      { timeoutMs: 60_000, intervalMs: 200 },
    );
    expect(gone).toBe(true);
  });
});
