import { describe, expect, it } from '@jest/globals';
import { BenchmarkUsageError } from '../../harness/index.js';
import { clientTarget, OM_TRANSPORT_CLASS } from './meta-cluster.js';
import { estimateRunMs, levelClients, parseOzoneMetaFlags, profiledClients } from './ozone-meta-settings.js';
import { turnOrder } from './ozone-meta-scenario.js';

describe('ozone-meta settings', () => {
  it("defaults: the embedded cluster, fastpath's two transports, every operation, 16 workers; --quick shorter", () => {
    const d = parseOzoneMetaFlags([], false);
    expect(d).toMatchObject({
      cluster: 'embedded',
      clients: ['fastpath-rpc', 'fastpath-grpc'],
      workers: 16,
      windowMs: 10_000,
      rounds: 3,
    });
    expect(d.ops).toHaveLength(7);
    const q = parseOzoneMetaFlags([], true);
    expect(q).toMatchObject({ windowMs: 2000, rounds: 1, warmupMs: 500 });
    expect(estimateRunMs(q)).toBeLessThan(estimateRunMs(d));
  });

  it("Java beside fastpath on a real cluster; operations in the round's order, the creates with any that needs keys", () => {
    expect(parseOzoneMetaFlags(['--cluster', 'real-ha'], true).clients).toEqual([
      'fastpath-rpc',
      'fastpath-grpc',
      'java',
    ]);
    expect(parseOzoneMetaFlags(['--cluster', 'real', '--no-java'], true).clients).toHaveLength(2);
    expect(parseOzoneMetaFlags(['--ops', 'delete,create-empty'], true).ops).toEqual([
      'create-empty',
      'create-1b',
      'delete',
    ]);
    expect(parseOzoneMetaFlags(['--ops', 'list'], true).ops).toEqual(['list']);
    expect(() => parseOzoneMetaFlags(['--no-java'], true)).toThrow(BenchmarkUsageError);
    expect(() => parseOzoneMetaFlags(['--cluster', 'cloud'], true)).toThrow(BenchmarkUsageError);
  });

  it("--om-grpc-channel: the client's default unless named; one of the client's channels", () => {
    expect(parseOzoneMetaFlags([], true).omGrpcChannel).toBeUndefined();
    expect(parseOzoneMetaFlags(['--om-grpc-channel', 'socket'], true).omGrpcChannel).toBe('socket');
    expect(() => parseOzoneMetaFlags(['--om-grpc-channel', 'carrier-pigeon'], true)).toThrow(
      BenchmarkUsageError,
    );
  });

  it("--profile: off unless asked; fastpath's clients of each level profiled, in the run's estimate", () => {
    const plain = parseOzoneMetaFlags(['--cluster', 'real', '--security', 'none,kerberos'], true);
    expect(plain.profile).toBe(false);
    const profiled = parseOzoneMetaFlags(
      ['--cluster', 'real', '--security', 'none,kerberos', '--profile'],
      true,
    );
    expect(profiled.profile).toBe(true);
    expect(profiledClients(profiled, 'none')).toEqual(['fastpath-rpc', 'fastpath-grpc']);
    expect(profiledClients(profiled, 'kerberos')).toEqual(['fastpath-rpc']);
    expect(estimateRunMs(profiled)).toBeGreaterThan(estimateRunMs(plain));
  });

  it('--security: a cluster per level on a real cluster, fastpath over Hadoop RPC and Java on the secure ones', () => {
    expect(parseOzoneMetaFlags([], true).security).toEqual(['none']);
    const s = parseOzoneMetaFlags(['--cluster', 'real', '--security', 'none,kerberos,privacy'], true);
    expect(s.security).toEqual(['none', 'kerberos', 'privacy']);
    expect(levelClients(s, 'none')).toEqual(['fastpath-rpc', 'fastpath-grpc', 'java']);
    expect(levelClients(s, 'kerberos')).toEqual(['fastpath-rpc', 'java']);
    expect(levelClients(s, 'privacy')).toEqual(['fastpath-rpc', 'java']);
    // Each level is a run of its own, a secure cluster's start a little longer.
    const none = parseOzoneMetaFlags(['--cluster', 'real'], true);
    expect(estimateRunMs(s)).toBeGreaterThan(2 * estimateRunMs(none));
    expect(() => parseOzoneMetaFlags(['--security', 'kerberos'], true)).toThrow(/needs --cluster real/);
    expect(() => parseOzoneMetaFlags(['--cluster', 'real-ha', '--security', 'privacy'], true)).toThrow(
      BenchmarkUsageError,
    );
    expect(() => parseOzoneMetaFlags(['--cluster', 'real', '--security', 'ssl'], true)).toThrow(
      /unknown item "ssl"/,
    );
  });

  it('a secure target carries the security keys under the transport, and the log-in', () => {
    const one = { rpcAddress: '127.0.0.1:9862', grpcAddress: '127.0.0.1:8981' };
    const login = {
      level: 'privacy' as const,
      principal: 'test@EXAMPLE.COM',
      keytab: '/k/test.keytab',
      properties: { 'hadoop.rpc.protection': 'privacy', 'ozone.om.transport.class': 'x' },
      tls: { caFile: '/ca.pem', serverNameOverride: 'datanode.ozone.example.com' },
    };
    expect(clientTarget('fastpath-rpc', one, login)).toEqual({
      omAddress: '127.0.0.1:9862',
      properties: {
        'hadoop.rpc.protection': 'privacy',
        'ozone.om.transport.class': OM_TRANSPORT_CLASS['fastpath-rpc'],
      },
      login,
    });
    expect(clientTarget('java', one, login)).toMatchObject({ omAddress: '127.0.0.1:9862', login });
  });

  it('each client reaches the OM over its transport: one OM by address, OM HA by the service id', () => {
    const one = { rpcAddress: '127.0.0.1:9862', grpcAddress: '127.0.0.1:8981' };
    expect(clientTarget('fastpath-grpc', one)).toEqual({
      omAddress: '127.0.0.1:8981',
      properties: { 'ozone.om.transport.class': OM_TRANSPORT_CLASS['fastpath-grpc'] },
    });
    expect(clientTarget('java', one)).toEqual({ omAddress: '127.0.0.1:9862', properties: {} });
    // --om-grpc-channel names the gRPC client's session; the other clients do not take it.
    expect(clientTarget('fastpath-grpc', one, undefined, 'socket').properties).toEqual({
      'ozone.om.transport.class': OM_TRANSPORT_CLASS['fastpath-grpc'],
      'ozone.client.om.grpc.channel': 'socket',
    });
    expect(clientTarget('fastpath-rpc', one, undefined, 'socket').properties).toEqual({
      'ozone.om.transport.class': OM_TRANSPORT_CLASS['fastpath-rpc'],
    });
    const ha = { ...one, service: { id: 'omservice', properties: { 'ozone.om.service.ids': 'omservice' } } };
    expect(clientTarget('fastpath-rpc', ha)).toEqual({
      omAddress: 'omservice',
      properties: {
        'ozone.om.service.ids': 'omservice',
        'ozone.om.transport.class': OM_TRANSPORT_CLASS['fastpath-rpc'],
      },
    });
    expect(clientTarget('java', ha).omAddress).toBe('omservice');
  });

  it('takes turns going first, operation by operation and round by round', () => {
    expect(turnOrder(['a', 'b', 'c'], 1, 0)).toEqual(['b', 'c', 'a']);
    expect(turnOrder(['a', 'b', 'c'], 1, 2)).toEqual(['a', 'b', 'c']);
    expect(turnOrder(['a', 'b'], 2, 1)).toEqual(['b', 'a']);
  });
});
