import {
  categoryOf,
  formatProfileShares,
  summarizeCpuProfile,
  topSelfFunctions,
} from './cpu-profile-summary.js';

describe('CPU profile summary', () => {
  it('puts frames in categories by the code they run', () => {
    expect(categoryOf('onStreamRead', 'node:internal/stream_base_commons')).toBe('HTTP/2 and streams (Node)');
    expect(categoryOf('push', 'file:///x/node_modules/@grpc/grpc-js/build/src/stream-decoder.js')).toBe(
      'grpc-js',
    );
    expect(categoryOf('decode', 'file:///x/packages/ozone-fs-client/src/internal/proto/protos.cjs')).toBe(
      'protobufjs',
    );
    expect(categoryOf('crc32', '')).toBe('checksums');
    expect(categoryOf('windowMatches', 'file:///x/packages/ozone-fs-client/src/internal/checksum.ts')).toBe(
      'checksums',
    );
    expect(categoryOf('read', 'file:///x/packages/ozone-fs-client/src/key-input-stream.ts')).toBe(
      'fastpath client',
    );
    expect(categoryOf('#send', 'file:///x/packages/ratis-client/src/internal/request-pipeline.ts')).toBe(
      'fastpath client',
    );
    expect(categoryOf('_copyActual', 'node:buffer')).toBe('Buffer copies and allocation');
    expect(categoryOf('createUnsafeBuffer', 'node:internal/buffer')).toBe('Buffer copies and allocation');
    expect(categoryOf('copy', '')).toBe('Buffer copies and allocation');
    expect(categoryOf('(garbage collector)', '')).toBe('garbage collection');
    expect(categoryOf('(idle)', '')).toBe('idle');
    expect(categoryOf('(program)', '')).toBe('other Node and V8');
  });

  it("puts a KMS server's frames in its own categories: HTTP/1, Fastify, crypto, ZooKeeper, metrics, the server", () => {
    expect(categoryOf('parserOnHeadersComplete', 'node:_http_common')).toBe('HTTP/1 (Node)');
    expect(categoryOf('write_', 'node:_http_outgoing')).toBe('HTTP/1 (Node)');
    // HTTP/2 stays where the gRPC clients' profiles put it.
    expect(categoryOf('onStreamRead', 'node:internal/http2/core')).toBe('HTTP/2 and streams (Node)');
    expect(categoryOf('onStreamRead', 'node:internal/stream_base_commons')).toBe('HTTP/2 and streams (Node)');
    expect(categoryOf('runPreParsing', 'file:///x/node_modules/fastify/lib/route.js')).toBe('Fastify');
    expect(categoryOf('find', 'file:///x/node_modules/find-my-way/index.js')).toBe('Fastify');
    expect(categoryOf('wrapThenable', 'file:///x/node_modules/@fastify/error/index.js')).toBe('Fastify');
    expect(categoryOf('createHmac', 'node:crypto')).toBe('crypto (Node)');
    expect(categoryOf('Hmac', 'node:internal/crypto/hash')).toBe('crypto (Node)');
    expect(categoryOf('digest', '')).toBe('crypto (Node)');
    expect(categoryOf('Hmac', '')).toBe('crypto (Node)');
    // Socket and file writes' system calls, whoever wrote (HTTP answers, the ZooKeeper client, a log).
    expect(categoryOf('writev', '')).toBe('write syscalls (native)');
    expect(categoryOf('writeBuffer', '')).toBe('write syscalls (native)');
    expect(categoryOf('writeBuffer', 'file:///x/app.js')).toBe('other Node and V8');
    expect(
      categoryOf('onData', 'file:///x/node_modules/node-zookeeper-client/lib/ConnectionManager.js'),
    ).toBe('ZooKeeper client');
    expect(categoryOf('decode', 'file:///x/packages/zookeeper-client/src/internal/jute.ts')).toBe(
      'ZooKeeper client',
    );
    expect(categoryOf('observe', 'file:///x/node_modules/prom-client/lib/histogram.js')).toBe(
      'metrics (prom-client)',
    );
    expect(categoryOf('verify', 'file:///x/packages/kms-server/src/internal/auth/cookie.ts')).toBe(
      'fastpath server',
    );
    expect(categoryOf('verify', 'file:///x/packages/token-manager/src/token-manager.ts')).toBe(
      'fastpath server',
    );
    // The benchmarks' bundle of the server, even in a scratch folder inside the benchmarks package.
    expect(categoryOf('handle', 'file:///x/benchmarks/.probes/kms-http-1/dist/cli-main.js')).toBe(
      'fastpath server',
    );
    expect(categoryOf('sample', 'file:///x/benchmarks/src/scenarios/kms-http/event-loop-probe.mjs')).toBe(
      'benchmark reader',
    );
  });

  it('shares self time over busy samples, idle left out', () => {
    const profile = {
      nodes: [
        { id: 1, callFrame: { functionName: '(idle)', url: '' } },
        { id: 2, callFrame: { functionName: '(garbage collector)', url: '' } },
        { id: 3, callFrame: { functionName: 'x', url: 'file:///a/@grpc/grpc-js/y.js' } },
      ],
      samples: [1, 2, 3, 3, 1],
      timeDeltas: [500, 100, 100, 200, 700],
    };
    const s = summarizeCpuProfile(profile);
    expect(s.busyMs).toBeCloseTo(0.4);
    expect(s.shares['garbage collection']).toBeCloseTo(0.25);
    expect(s.shares['grpc-js']).toBeCloseTo(0.75);
    expect(s.shares['fastpath client']).toBe(0);
  });

  it("takes a native frame called from fastpath's GSS-API addon for its caller's, whatever V8 named it", () => {
    const profile = {
      nodes: [
        { id: 1, callFrame: { functionName: '(root)', url: '' }, children: [2, 4] },
        {
          id: 2,
          callFrame: { functionName: 'wrap', url: 'file:///p/hadoop-rpc/src/internal/sasl/gss-native.ts' },
          children: [3],
        },
        // N-API functions share V8's name of the first one created: the CRC addon's.
        { id: 3, callFrame: { functionName: 'crc32c', url: '' } },
        { id: 4, callFrame: { functionName: 'crc32c', url: '' } },
      ],
      samples: [1, 3, 3, 3, 4],
      timeDeltas: [0, 500, 500, 500, 500],
    };
    const s = summarizeCpuProfile(profile);
    expect(s.shares['Kerberos wrap and unwrap (GSS-API)']).toBeCloseTo(0.75);
    expect(s.shares.checksums).toBeCloseTo(0.25);
    expect(topSelfFunctions(profile, 1)[0]).toMatchObject({
      functionName: 'wrap (native)',
      category: 'Kerberos wrap and unwrap (GSS-API)',
    });
  });

  it("counts nothing for the first sample: its delta is the profiler's start, not time spent", () => {
    const profile = {
      nodes: [
        { id: 1, callFrame: { functionName: 'dispatch', url: '' } },
        { id: 2, callFrame: { functionName: 'x', url: 'file:///a/@grpc/grpc-js/y.js' } },
      ],
      samples: [1, 2, 2],
      timeDeltas: [85_000, 500, 500],
    };
    expect(summarizeCpuProfile(profile).busyMs).toBeCloseTo(1);
    expect(summarizeCpuProfile(profile).shares['grpc-js']).toBeCloseTo(1);
    expect(topSelfFunctions(profile, 5).map((f) => f.functionName)).toEqual(['x']);
  });

  it('lists the functions with the most self time, busiest first, idle left out', () => {
    const profile = {
      nodes: [
        { id: 1, callFrame: { functionName: '(idle)', url: '' } },
        { id: 2, callFrame: { functionName: '_copyActual', url: 'node:buffer' } },
        { id: 3, callFrame: { functionName: 'encode', url: 'file:///x/protobufjs/src/writer.js' } },
        { id: 4, callFrame: { functionName: '_copyActual', url: 'node:buffer' } },
      ],
      samples: [1, 2, 3, 4, 4],
      timeDeltas: [900, 100, 100, 100, 100],
    };
    const top = topSelfFunctions(profile, 5);
    expect(top.map((f) => [f.functionName, f.category])).toEqual([
      ['_copyActual', 'Buffer copies and allocation'],
      ['encode', 'protobufjs'],
    ]);
    expect(top[0]!.share).toBeCloseTo(0.75);
    expect(topSelfFunctions(profile, 1)).toHaveLength(1);
    expect(formatProfileShares(summarizeCpuProfile(profile))).toBe(
      'Buffer copies and allocation 75%, protobufjs 25%',
    );
  });
});
