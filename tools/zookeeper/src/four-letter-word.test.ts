import { fourLetterWord, parseMntr, parseMode } from './four-letter-word.js';

describe('parseMntr', () => {
  it('turns numeric values into numbers and keeps the rest as strings', () => {
    const parsed = parseMntr(
      'zk_version\t3.8.0-abc, built on 2024-12-29 17:54 UTC\nzk_avg_latency\t0.5\nzk_znode_count\t5\n' +
        'zk_server_state\tleader\nzk_max_latency\t-1\nzk_big\t1e3\n\n',
    );
    expect(parsed).toEqual({
      zk_version: '3.8.0-abc, built on 2024-12-29 17:54 UTC',
      zk_avg_latency: 0.5,
      zk_znode_count: 5,
      zk_server_state: 'leader',
      zk_max_latency: -1,
      zk_big: 1000,
    });
  });

  it('ignores lines without a key and a tab', () => {
    expect(parseMntr('garbage\n\tvalue-without-key\n')).toEqual({});
  });
});

describe('parseMode', () => {
  it('reads the Mode line of srvr', () => {
    const srvr = 'Zookeeper version: 3.8.0\nLatency min/avg/max: 0/0.0/0\nMode: follower\nNode count: 5\n';
    expect(parseMode(srvr)).toBe('follower');
    expect(parseMode(srvr.replace('follower', 'standalone'))).toBe('standalone');
  });

  it('is undefined for a server that does not serve', () => {
    expect(parseMode('This ZooKeeper instance is not currently serving requests\n')).toBeUndefined();
    expect(parseMode('Mode: confused\n')).toBeUndefined();
  });
});

describe('fourLetterWord', () => {
  it('accepts only four lowercase letters and a valid port', () => {
    expect(() => fourLetterWord(2181, 'ruok; rm')).toThrow(/invalid option "word"/);
    expect(() => fourLetterWord(0, 'ruok')).toThrow(/invalid option "port"/);
  });
});
