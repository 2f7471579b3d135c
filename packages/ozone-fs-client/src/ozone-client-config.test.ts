import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InvalidOptionError } from '@fastpath/core';
import { HadoopConfigurationError } from '@fastpath/hadoop-common';
import { createOzoneClient } from './ozone-client.js';
import {
  DEFAULT_OZONE_CLIENT_CONFIG,
  loadOzoneSiteXml,
  ozoneClientConfigFromProperties,
  parseDurationMs,
  parseStorageSize,
} from './ozone-client-config.js';

describe('OzoneClientConfig', () => {
  it("has Ozone's defaults", () => {
    expect(DEFAULT_OZONE_CLIENT_CONFIG).toEqual({
      bytesPerChecksum: 16384,
      checksumType: 'CRC32',
      verifyChecksum: true,
      chunkSizeBytes: 4 * 1024 * 1024,
      blockSizeBytes: 256 * 1024 * 1024,
      flushSizeBytes: 16 * 1024 * 1024,
      maxBufferSizeBytes: 32 * 1024 * 1024,
      watchType: 'ALL_COMMITTED',
      writeMaxRetries: 5,
      flushDelay: true,
      hbaseEnhancementsAllowed: false,
      hsyncEnabled: false,
      readTimeoutMs: 30000,
      readMaxRetries: 3,
      readRetryIntervalMs: 1000,
      maxOutstandingRequests: 32,
      omGrpcPort: 8981,
      omTransport: undefined,
      omFailoverMaxAttempts: 500,
      omFailoverWaitMs: 2000,
      warmupEnabled: true,
      warmupTlsEnabled: true,
      shortCircuitEnabled: false,
      domainSocketPath: undefined,
      shortCircuitDisableIntervalMs: 600_000,
      datanodeTransport: 'socket-stream-pool',
      bulkEngine: 'auto',
      omGrpcChannel: 'socket',
      ratisGrpcChannel: 'http2',
      datanodeStreamsPerChannel: 4,
      datanodeStreamIdleMs: 1_000,
      datanodeHttp2MaxFrameBytes: 1_048_576,
      readWorkerThreads: 0,
      keyProviderPath: undefined,
      readChunkReadAheadBytes: 1_048_576,
      streamReadBlockEnabled: false,
      streamReadResponseDataSizeBytes: 1_048_576,
      streamReadPreReadSizeBytes: 33_554_432,
      streamReadTimeoutMs: 10_000,
      streamReadBlockPositionalMinBytes: 268_435_456,
      replication: undefined,
      replicationType: 'RATIS',
      replicationAllowedConfigs:
        '^((STANDALONE|RATIS)/(ONE|THREE))|(EC/(3-2|6-3|10-4)-(512|1024|2048|4096)k)$',
      ecStripeWriteMaxRetries: 10,
      dataStreamEnabled: false,
      dataStreamAutoThresholdBytes: 4_194_304,
      dataStreamPacketBytes: 1_048_576,
      dataStreamFlushSizeBytes: 16_777_216,
      dataStreamWindowBytes: 67_108_864,
      dataStreamChainRouting: true,
      dataStreamSyncSizeBytes: 0,
    });
  });

  it("reads the streaming-write settings under Ozone's keys, refusing sizes that do not nest", () => {
    expect(
      ozoneClientConfigFromProperties({
        'ozone.fs.datastream.enabled': 'true',
        'ozone.fs.datastream.auto.threshold': '0',
        'ozone.client.datastream.min.packet.size': '256KB',
        'ozone.client.datastream.buffer.flush.size': '1MB',
        'ozone.client.datastream.window.size': '4MB',
        'ozone.client.datastream.pipeline.mode': 'false',
        'ozone.client.datastream.sync.size': '2MB',
      }),
    ).toMatchObject({
      dataStreamEnabled: true,
      dataStreamAutoThresholdBytes: 0,
      dataStreamPacketBytes: 262_144,
      dataStreamFlushSizeBytes: 1_048_576,
      dataStreamWindowBytes: 4_194_304,
      dataStreamChainRouting: false,
      dataStreamSyncSizeBytes: 2_097_152,
    });
    for (const [properties, key] of [
      [{ 'ozone.fs.datastream.enabled': 'sometimes' }, 'ozone.fs.datastream.enabled'],
      [{ 'ozone.client.datastream.min.packet.size': '0' }, 'ozone.client.datastream.min.packet.size'],
      [{ 'ozone.client.datastream.buffer.flush.size': '512KB' }, 'ozone.client.datastream.buffer.flush.size'],
      [{ 'ozone.client.datastream.window.size': '8MB' }, 'ozone.client.datastream.window.size'],
      [{ 'ozone.fs.datastream.auto.threshold': '-1' }, 'ozone.fs.datastream.auto.threshold'],
    ] as const) {
      let thrown: unknown;
      try {
        ozoneClientConfigFromProperties(properties);
      } catch (e) {
        thrown = e;
      }
      expect(thrown).toBeInstanceOf(InvalidOptionError);
      expect((thrown as Error).message).toContain(key);
    }
  });

  it("reads the replication settings under Ozone's keys, checking the replication as its type and the allowed configs say", () => {
    expect(
      ozoneClientConfigFromProperties({
        'ozone.replication.type': ' ec ',
        'ozone.replication': ' rs-6-3-1024k ',
        'ozone.client.max.ec.stripe.write.retries': '3',
      }),
    ).toMatchObject({ replicationType: 'EC', replication: 'rs-6-3-1024k', ecStripeWriteMaxRetries: 3 });
    expect(ozoneClientConfigFromProperties({ 'ozone.replication': 'ONE' })).toMatchObject({
      replicationType: 'RATIS',
      replication: 'ONE',
    });
    // An empty value is unset; a type alone is allowed (it changes nothing).
    expect(ozoneClientConfigFromProperties({ 'ozone.replication': '' }).replication).toBeUndefined();
    expect(ozoneClientConfigFromProperties({ 'ozone.replication.type': 'EC' }).replication).toBeUndefined();
    expect(
      ozoneClientConfigFromProperties({
        'ozone.replication.type': 'EC',
        'ozone.replication': 'xor-2-1-1024k',
        'ozone.replication.allowed-configs': '',
      }).replication,
    ).toBe('xor-2-1-1024k');
    for (const [properties, key] of [
      [{ 'ozone.replication': 'rs-3-2-1024k' }, 'ozone.replication'],
      [{ 'ozone.replication.type': 'EC', 'ozone.replication': 'THREE' }, 'ozone.replication'],
      [{ 'ozone.replication.type': 'EC', 'ozone.replication': 'rs-3-2-4k' }, 'ozone.replication'],
      [{ 'ozone.replication.type': 'STAND_ALONE' }, 'ozone.replication.type'],
      [{ 'ozone.replication.allowed-configs': '(' }, 'ozone.replication.allowed-configs'],
      [{ 'ozone.client.max.ec.stripe.write.retries': '-1' }, 'ozone.client.max.ec.stripe.write.retries'],
    ] as const) {
      let thrown: unknown;
      try {
        ozoneClientConfigFromProperties(properties);
      } catch (e) {
        thrown = e;
      }
      expect(thrown).toBeInstanceOf(InvalidOptionError);
      expect((thrown as Error).message).toContain(key);
    }
  });

  it("reads the OM transport and failover settings under Ozone's keys, refusing what it cannot use, unset by default", () => {
    const pkg = 'org.apache.hadoop.ozone.om.protocolPB.';
    expect(
      ozoneClientConfigFromProperties({
        'ozone.om.transport.class': ` ${pkg}GrpcOmTransportFactory `,
        'ozone.client.failover.max.attempts': '7',
        'ozone.client.wait.between.retries.millis': '250',
      }),
    ).toMatchObject({ omTransport: 'grpc', omFailoverMaxAttempts: 7, omFailoverWaitMs: 250 });
    expect(
      ozoneClientConfigFromProperties({ 'ozone.om.transport.class': `${pkg}Hadoop3OmTransportFactory` }),
    ).toMatchObject({ omTransport: 'hadoop-rpc' });
    expect(ozoneClientConfigFromProperties({}).omTransport).toBeUndefined();
    expect(() =>
      ozoneClientConfigFromProperties({ 'ozone.om.transport.class': `${pkg}Hadoop27OmTransportFactory` }),
    ).toThrow(/ozone\.om\.transport\.class/);
    expect(() => ozoneClientConfigFromProperties({ 'ozone.client.failover.max.attempts': '-1' })).toThrow(
      /ozone\.client\.failover\.max\.attempts/,
    );
    expect(() =>
      ozoneClientConfigFromProperties({ 'ozone.client.wait.between.retries.millis': 'x' }),
    ).toThrow(/ozone\.client\.wait\.between\.retries\.millis/);
  });

  it("reads Hadoop's key provider path, an empty value being no provider", () => {
    expect(
      ozoneClientConfigFromProperties({ 'hadoop.security.key.provider.path': ' kms://http@h1;h2:9600/kms ' }),
    ).toMatchObject({ keyProviderPath: 'kms://http@h1;h2:9600/kms' });
    expect(
      ozoneClientConfigFromProperties({ 'hadoop.security.key.provider.path': '' }).keyProviderPath,
    ).toBeUndefined();
  });

  it('reads the read worker threads and refuses a count it cannot use, naming the key', () => {
    expect(ozoneClientConfigFromProperties({ 'ozone.client.read.worker.threads': ' 4 ' })).toMatchObject({
      readWorkerThreads: 4,
    });
    for (const bad of ['-1', '1.5', 'two', '65'])
      expect(() => ozoneClientConfigFromProperties({ 'ozone.client.read.worker.threads': bad })).toThrow(
        /ozone\.client\.read\.worker\.threads/,
      );
  });

  it("reads the write path's flush, buffer and watch settings under Ozone's keys", () => {
    expect(
      ozoneClientConfigFromProperties({
        'ozone.client.stream.buffer.flush.size': '8MB',
        'ozone.client.stream.buffer.max.size': '24MB',
        'hdds.ratis.client.request.watch.type': 'majority_committed',
      }),
    ).toMatchObject({
      flushSizeBytes: 8 * 1024 * 1024,
      maxBufferSizeBytes: 24 * 1024 * 1024,
      watchType: 'MAJORITY_COMMITTED',
    });
    expect(() => ozoneClientConfigFromProperties({ 'hdds.ratis.client.request.watch.type': 'ALL' })).toThrow(
      /hdds\.ratis\.client\.request\.watch\.type/,
    );
    expect(() => ozoneClientConfigFromProperties({ 'ozone.client.stream.buffer.flush.size': '0' })).toThrow(
      /ozone\.client\.stream\.buffer\.flush\.size/,
    );
  });

  it("reads the hsync settings under Ozone's keys and refuses what is not a boolean, naming the key", () => {
    expect(
      ozoneClientConfigFromProperties({
        'ozone.client.hbase.enhancements.allowed': 'true',
        'ozone.fs.hsync.enabled': 'TRUE',
        'ozone.client.stream.buffer.flush.delay': 'false',
      }),
    ).toMatchObject({ hbaseEnhancementsAllowed: true, hsyncEnabled: true, flushDelay: false });
    expect(() => ozoneClientConfigFromProperties({ 'ozone.fs.hsync.enabled': 'yes' })).toThrow(
      /ozone\.fs\.hsync\.enabled/,
    );
    expect(() => ozoneClientConfigFromProperties({ 'ozone.client.hbase.enhancements.allowed': '1' })).toThrow(
      /ozone\.client\.hbase\.enhancements\.allowed/,
    );
  });

  it('reads the bulk engine and refuses a name it does not know, naming the key', () => {
    expect(ozoneClientConfigFromProperties({ 'ozone.client.bulk.engine': ' JS ' }).bulkEngine).toBe('js');
    expect(() => ozoneClientConfigFromProperties({ 'ozone.client.bulk.engine': 'simd' })).toThrow(
      /ozone\.client\.bulk\.engine.*auto, native, js/,
    );
  });

  it('reads the datanode transport settings and refuses what it cannot use, naming the key', () => {
    expect(
      ozoneClientConfigFromProperties({
        'ozone.client.datanode.transport': ' Call-Per-Request ',
        'ozone.client.datanode.streams.per.channel': '16',
        'ozone.client.datanode.stream.idle.timeout': '5s',
      }),
    ).toMatchObject({
      datanodeTransport: 'call-per-request',
      datanodeStreamsPerChannel: 16,
      datanodeStreamIdleMs: 5_000,
    });
    expect(() => ozoneClientConfigFromProperties({ 'ozone.client.datanode.transport': 'pooled' })).toThrow(
      /ozone\.client\.datanode\.transport.*stream-pool, call-per-request/,
    );
    expect(() =>
      ozoneClientConfigFromProperties({ 'ozone.client.datanode.streams.per.channel': '0' }),
    ).toThrow(/ozone\.client\.datanode\.streams\.per\.channel/);
    expect(() =>
      ozoneClientConfigFromProperties({ 'ozone.client.datanode.stream.idle.timeout': '0s' }),
    ).toThrow(/ozone\.client\.datanode\.stream\.idle\.timeout/);
    expect(
      ozoneClientConfigFromProperties({
        'ozone.client.datanode.transport': 'http2-stream-pool',
        'ozone.client.datanode.http2.max.frame.size': '16KB',
      }),
    ).toMatchObject({ datanodeTransport: 'http2-stream-pool', datanodeHttp2MaxFrameBytes: 16_384 });
    for (const bad of ['16383', '16MB'])
      expect(() =>
        ozoneClientConfigFromProperties({ 'ozone.client.datanode.http2.max.frame.size': bad }),
      ).toThrow(/ozone\.client\.datanode\.http2\.max\.frame\.size/);
  });

  it("reads the Ratis streams' session, refusing one it does not know, naming the key", () => {
    expect(ozoneClientConfigFromProperties({ 'ozone.client.ratis.grpc.channel': ' Socket ' })).toMatchObject({
      ratisGrpcChannel: 'socket',
    });
    expect(() => ozoneClientConfigFromProperties({ 'ozone.client.ratis.grpc.channel': 'grpc-js' })).toThrow(
      /ozone\.client\.ratis\.grpc\.channel.*http2, socket/,
    );
  });

  it("reads the streaming ReadBlock settings under Ozone's keys, refusing bad values naming the key", () => {
    expect(
      ozoneClientConfigFromProperties({
        'ozone.client.stream.readblock.enable': 'TRUE',
        'ozone.client.stream.read.response-data-size': '256KB',
        'ozone.client.stream.read.pre-read-size': '0',
        'ozone.client.stream.read.timeout': '1500',
        'ozone.client.stream.readblock.positional.min.size': '0',
        'ozone.client.read.chunk.readahead': '4MB',
      }),
    ).toMatchObject({
      readChunkReadAheadBytes: 4 * 1024 * 1024,
      streamReadBlockEnabled: true,
      streamReadResponseDataSizeBytes: 256 * 1024,
      streamReadPreReadSizeBytes: 0,
      streamReadTimeoutMs: 1_500,
      streamReadBlockPositionalMinBytes: 0,
    });
    const refused: [string, string][] = [
      ['ozone.client.stream.readblock.enable', 'on'],
      ['ozone.client.stream.read.response-data-size', '0'],
      ['ozone.client.stream.read.response-data-size', '17MB'],
      ['ozone.client.stream.read.pre-read-size', '-1'],
      ['ozone.client.stream.read.timeout', '0s'],
      ['ozone.client.stream.read.timeout', 'soon'],
      ['ozone.client.stream.readblock.positional.min.size', 'big'],
      ['ozone.client.read.chunk.readahead', '-1'],
    ];
    for (const [key, value] of refused) {
      let thrown: unknown;
      try {
        ozoneClientConfigFromProperties({ [key]: value });
      } catch (err) {
        thrown = err;
      }
      expect(thrown).toBeInstanceOf(InvalidOptionError);
      expect((thrown as InvalidOptionError).option).toBe(key);
    }
  });

  it("reads the short-circuit settings under Ozone's keys (a bare disable interval is seconds)", () => {
    expect(
      ozoneClientConfigFromProperties({
        'ozone.client.read.short-circuit': 'true',
        'ozone.domain.socket.path': '/var/lib/ozone/dn_socket_PORT',
        'ozone.client.read.short-circuit.disable.interval': '30',
      }),
    ).toMatchObject({
      shortCircuitEnabled: true,
      domainSocketPath: '/var/lib/ozone/dn_socket_PORT',
      shortCircuitDisableIntervalMs: 30_000,
    });
    expect(
      ozoneClientConfigFromProperties({
        'ozone.domain.socket.path': '  ',
        'ozone.client.read.short-circuit.disable.interval': '250ms',
      }),
    ).toMatchObject({ domainSocketPath: undefined, shortCircuitDisableIntervalMs: 250 });
    expect(() => ozoneClientConfigFromProperties({ 'ozone.client.read.short-circuit': 'yes' })).toThrow(
      /ozone\.client\.read\.short-circuit/,
    );
  });

  it('reads the warm-up settings and refuses a non-boolean', () => {
    expect(
      ozoneClientConfigFromProperties({
        'ozone.client.warmup.enabled': 'false',
        'ozone.client.warmup.tls.enabled': 'FALSE',
      }),
    ).toMatchObject({ warmupEnabled: false, warmupTlsEnabled: false });
    expect(() => ozoneClientConfigFromProperties({ 'ozone.client.warmup.enabled': 'on' })).toThrow(
      /ozone\.client\.warmup\.enabled/,
    );
  });

  it("reads Ozone's keys, with Hadoop's size and time units", () => {
    const c = ozoneClientConfigFromProperties({
      'ozone.client.bytes.per.checksum': '1MB',
      'ozone.client.checksum.type': 'crc32c',
      'ozone.client.verify.checksum': 'false',
      'ozone.scm.block.size': '128MB',
      'ozone.client.read.timeout': '5s',
      'ozone.client.read.retry.interval': '250ms',
      'unrelated.key': 'x',
    });
    expect(c).toMatchObject({
      bytesPerChecksum: 1 << 20,
      checksumType: 'CRC32C',
      verifyChecksum: false,
      blockSizeBytes: 128 << 20,
      readTimeoutMs: 5000,
      readRetryIntervalMs: 250,
    });
  });

  it('raises bytes per checksum below 8KB to 8KB, as Ozone does', () => {
    expect(
      ozoneClientConfigFromProperties(new Map([['ozone.client.bytes.per.checksum', '1KB']])).bytesPerChecksum,
    ).toBe(8192);
  });

  it('refuses values it cannot use, naming the key', () => {
    expect(() => ozoneClientConfigFromProperties({ 'ozone.client.checksum.type': 'CRC64' })).toThrow(
      /ozone\.client\.checksum\.type/,
    );
    expect(() => ozoneClientConfigFromProperties({ 'ozone.client.verify.checksum': 'yes' })).toThrow(
      /ozone\.client\.verify\.checksum/,
    );
    expect(() => ozoneClientConfigFromProperties({ 'ozone.scm.block.size': '1KB' })).toThrow(
      /ozone\.scm\.block\.size/,
    );
    expect(() => parseStorageSize('k', '12 parsecs')).toThrow(/k/);
    expect(() => parseDurationMs('k', 'soon')).toThrow(/k/);
  });

  it('parses sizes and durations', () => {
    expect(parseStorageSize('k', '4MB')).toBe(4 << 20);
    expect(parseStorageSize('k', '16k')).toBe(16384);
    expect(parseStorageSize('k', '1048576')).toBe(1 << 20);
    expect(parseDurationMs('k', '30s')).toBe(30000);
    expect(parseDurationMs('k', '2m')).toBe(120000);
    expect(parseDurationMs('k', '1500')).toBe(1500);
  });
});

describe('ozone-site.xml', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'fastpath-ozone-site-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const site = (props: Record<string, string>): string =>
    `<?xml version="1.0"?>\n<configuration>\n${Object.entries(props)
      .map(([k, v]) => `  <property><name>${k}</name><value>${v}</value></property>`)
      .join('\n')}\n</configuration>\n`;

  it("is read with Hadoop's reader, later files winning, ${var} substituted", () => {
    writeFileSync(
      join(dir, 'a.xml'),
      site({
        'my.bpc': '1MB',
        'ozone.client.bytes.per.checksum': '${my.bpc}',
        'ozone.client.checksum.type': 'MD5',
      }),
    );
    writeFileSync(join(dir, 'b.xml'), site({ 'ozone.client.checksum.type': 'CRC32C' }));
    const c = ozoneClientConfigFromProperties(loadOzoneSiteXml([join(dir, 'a.xml'), join(dir, 'b.xml')]));
    expect(c).toMatchObject({ bytesPerChecksum: 1 << 20, checksumType: 'CRC32C' });
  });

  it('configures a client, with explicit properties on top', () => {
    writeFileSync(
      join(dir, 'ozone-site.xml'),
      site({ 'ozone.client.verify.checksum': 'false', 'ozone.client.read.timeout': '7s' }),
    );
    const client = createOzoneClient({
      omAddress: '127.0.0.1:1',
      configFiles: [join(dir, 'ozone-site.xml')],
      properties: { 'ozone.client.read.timeout': '9s' },
    });
    try {
      expect(client.config).toMatchObject({ verifyChecksum: false, readTimeoutMs: 9000 });
    } finally {
      client.close();
    }
  });

  it('a file that is missing or not a configuration is ERR_HADOOP_CONFIGURATION', () => {
    expect(() => loadOzoneSiteXml([join(dir, 'missing.xml')])).toThrow(HadoopConfigurationError);
    expect(loadOzoneSiteXml([join(dir, 'missing.xml')], { optional: true }).keys()).toEqual([]);
    writeFileSync(join(dir, 'bad.xml'), '<configuration><property><name>x</name>');
    expect(() => loadOzoneSiteXml([join(dir, 'bad.xml')])).toThrow(HadoopConfigurationError);
  });
});
