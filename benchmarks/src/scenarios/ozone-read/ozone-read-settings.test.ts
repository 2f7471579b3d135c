import { describe, expect, it } from '@jest/globals';
import { BenchmarkUsageError } from '../../harness/index.js';
import { datanodesFor, fileSetId, planCases, READ_ROWS, roundOrder, roundUnits } from './ozone-read-cases.js';
import { DEFAULT_OZONE_READ_SETTINGS, parseOzoneReadFlags, sizeFlag } from './ozone-read-settings.js';

describe('ozone-read flags', () => {
  it("defaults to the source's setting", () => {
    const s = parseOzoneReadFlags([], false);
    expect(s).toMatchObject({
      cluster: 'embedded',
      datanodes: 3,
      files: 16,
      fileSizeBytes: 64 * 1024 * 1024,
      readBytes: 64 * 1024,
      readers: 16,
      warmupMs: 3000,
      measureMs: 8000,
      rounds: 3,
      rows: ['grpc-1m', 'grpc-16k', 'sc-1m', 'sc-16k'],
      aligned: true,
      java: false,
      s3: false,
      checkEvery: 1,
    });
    expect(DEFAULT_OZONE_READ_SETTINGS.files).toBe(16);
  });

  it('reads the shortened run of the docs', () => {
    const s = parseOzoneReadFlags(
      ['--file-size', '8MiB', '--files', '4', '--warmup', '1', '--measure', '3', '--rounds', '1'],
      false,
    );
    expect(s).toMatchObject({
      fileSizeBytes: 8 * 1024 * 1024,
      files: 4,
      warmupMs: 1000,
      measureMs: 3000,
      rounds: 1,
    });
  });

  it('takes the real cluster with its gRPC rows and the Java anchor, and refuses short-circuit rows there', () => {
    const s = parseOzoneReadFlags(['--cluster', 'real'], false);
    expect(s.rows).toEqual(['grpc-1m', 'grpc-16k']);
    expect(s.java).toBe(true);
    expect(parseOzoneReadFlags(['--cluster', 'real', '--no-java'], false).java).toBe(false);
    expect(s.s3).toBe(true);
    expect(parseOzoneReadFlags(['--cluster', 'real', '--no-s3'], false).s3).toBe(false);
    expect(() => parseOzoneReadFlags(['--cluster', 'real', '--rows', 'sc-1m'], false)).toThrow(/libhadoop/);
  });

  it('--security: none by default; a cluster per level on the real cluster only', () => {
    expect(parseOzoneReadFlags([], true).security).toEqual(['none']);
    expect(
      parseOzoneReadFlags(['--cluster', 'real', '--security', 'none,kerberos,privacy'], true).security,
    ).toEqual(['none', 'kerberos', 'privacy']);
    expect(() => parseOzoneReadFlags(['--security', 'kerberos'], true)).toThrow(/needs --cluster real/);
    expect(() => parseOzoneReadFlags(['--cluster', 'real', '--security', 'sasl'], true)).toThrow(
      BenchmarkUsageError,
    );
  });

  it('rejects bad values with the flag named', () => {
    expect(() => parseOzoneReadFlags(['--file-size', '8 parsecs'], false)).toThrow(/--file-size/);
    expect(() => parseOzoneReadFlags(['--read-size', '2MiB', '--file-size', '1MiB'], false)).toThrow(
      /--read-size/,
    );
    expect(() => parseOzoneReadFlags(['--cluster', 'cloud'], false)).toThrow(BenchmarkUsageError);
    expect(() => parseOzoneReadFlags(['--rows', 'grpc-2m'], false)).toThrow(/grpc-2m/);
    expect(() => parseOzoneReadFlags(['--readers', '0'], false)).toThrow(/--readers/);
    expect(() => parseOzoneReadFlags(['--bogus'], false)).toThrow(/unknown flag/);
  });

  it('EC rows: asked by name, never by default, and the cluster gets the 5 datanodes rs-3-2 needs', () => {
    expect(parseOzoneReadFlags([], false).rows).not.toContain('ec-rs-3-2');
    expect(parseOzoneReadFlags(['--cluster', 'real'], true).rows).toEqual(['grpc-1m', 'grpc-16k']);
    const ec = parseOzoneReadFlags(['--rows', 'ec-rs-3-2,ec-rs-3-2-down'], false);
    expect(ec).toMatchObject({ rows: ['ec-rs-3-2', 'ec-rs-3-2-down'], datanodes: 5 });
    expect(parseOzoneReadFlags(['--rows', 'grpc-1m,ec-rs-3-2-down'], false).datanodes).toBe(5);
    expect(parseOzoneReadFlags(['--rows', 'grpc-1m'], false).datanodes).toBe(3);
    expect(datanodesFor(['sc-1m'])).toBe(3);
  });

  it('EC rows with --quick and --cluster real: the quick profile, Java beside fastpath', () => {
    const quick = parseOzoneReadFlags(['--rows', 'ec-rs-3-2,ec-rs-3-2-down'], true);
    expect(quick).toMatchObject({
      files: 4,
      fileSizeBytes: 8 * 1024 * 1024,
      rounds: 1,
      datanodes: 5,
      java: false,
    });
    const real = parseOzoneReadFlags(['--cluster', 'real', '--rows', 'ec-rs-3-2-down'], true);
    expect(real).toMatchObject({ cluster: 'real', rows: ['ec-rs-3-2-down'], datanodes: 5, java: true });
    // No S3 gateway for EC rows alone (its row reads the replicated files); beside a gRPC row it runs.
    expect(real.s3).toBe(false);
    expect(parseOzoneReadFlags(['--cluster', 'real', '--rows', 'grpc-1m,ec-rs-3-2'], true).s3).toBe(true);
  });

  it('sequential rows: asked by name, never by default, on the 16 KiB files, without the S3 gateway alone', () => {
    expect(parseOzoneReadFlags([], false).rows).not.toContain('seq-1');
    expect(parseOzoneReadFlags(['--cluster', 'real'], false).rows).not.toContain('seq-16');
    const seq = parseOzoneReadFlags(['--cluster', 'real', '--rows', 'seq-1,seq-16'], false);
    expect(seq).toMatchObject({
      rows: ['seq-1', 'seq-16'],
      datanodes: 3,
      java: true,
      s3: false,
      seqReadBytes: 1024 * 1024,
    });
    expect(parseOzoneReadFlags(['--cluster', 'real', '--rows', 'grpc-1m,seq-16'], false).s3).toBe(true);
    expect(parseOzoneReadFlags(['--seq-read-size', '256KiB'], false).seqReadBytes).toBe(256 * 1024);
    expect(() => parseOzoneReadFlags(['--seq-read-size', '32MiB'], false)).toThrow(/--seq-read-size/);
    expect(fileSetId(READ_ROWS['seq-1'])).toBe('bpc-16384');
    expect(fileSetId(READ_ROWS['seq-16'])).toBe(fileSetId(READ_ROWS['grpc-16k']));
    expect(READ_ROWS['seq-1'].sequential).toEqual({ readers: 1 });
    expect(READ_ROWS['seq-16'].sequential).toEqual({ readers: 16 });
  });

  it('reads sizes in bytes and binary units', () => {
    const r = { min: 1, max: 2 ** 40 };
    expect(sizeFlag('x', 's', '65536', 0, r)).toBe(65536);
    expect(sizeFlag('x', 's', '64KiB', 0, r)).toBe(65536);
    expect(sizeFlag('x', 's', '8MB', 0, r)).toBe(8 * 1024 * 1024);
    expect(sizeFlag('x', 's', undefined, 5, r)).toBe(5);
  });
});

describe('ozone-read cases', () => {
  it('plans rows × columns, the aligned pair per row, and the Java anchor on gRPC rows only', () => {
    const ids = planCases({ rows: ['grpc-1m', 'sc-16k'], aligned: true, readers: ['fastpath', 'java'] }).map(
      (c) => c.id,
    );
    expect(ids).toEqual([
      'grpc-1m-on',
      'grpc-1m-off-global',
      'grpc-1m-off-instance',
      'grpc-1m-on-aligned',
      'grpc-1m-off-instance-aligned',
      'java-grpc-1m-on',
      'java-grpc-1m-off-global',
      'java-grpc-1m-off-instance',
      'sc-16k-on',
      'sc-16k-off-global',
      'sc-16k-off-instance',
      'sc-16k-on-aligned',
      'sc-16k-off-instance-aligned',
    ]);
  });

  it('plans the S3 gateway on gRPC rows only, verify on only (the gateway verifies as it was started)', () => {
    const ids = planCases({ rows: ['grpc-16k', 'sc-1m'], aligned: true, readers: ['s3'] }).map((c) => c.id);
    expect(ids).toEqual(['s3-grpc-16k-on']);
  });

  it('adds a row per read worker count above 0 on the gRPC rows, with the first transport', () => {
    const cases = planCases({
      rows: ['grpc-16k', 'sc-16k'],
      aligned: false,
      readers: ['fastpath'],
      transports: ['stream-pool', 'call-per-request'],
      readWorkers: [0, 2],
    });
    expect(cases.filter((c) => c.column.id === 'on').map((c) => [c.id, c.transport, c.readWorkers])).toEqual([
      ['grpc-16k-on-pool', 'stream-pool', 0],
      ['grpc-16k-on-calls', 'call-per-request', 0],
      ['grpc-16k-on-pool-w2', 'stream-pool', 2],
      ['sc-16k-on-pool', 'stream-pool', 0],
    ]);
  });

  it('adds a ReadBlock row per gRPC row for fastpath (first transport, reader thread) and Java, none for short-circuit or S3', () => {
    const cases = planCases({
      rows: ['grpc-1m', 'sc-1m'],
      aligned: true,
      readers: ['fastpath', 'java', 's3'],
      transports: ['socket-stream-pool', 'stream-pool'],
      readWorkers: [0, 2],
      readModes: ['readchunk', 'readblock'],
    });
    expect(
      cases.filter((c) => c.column.id === 'on').map((c) => [c.id, c.transport, c.readWorkers, c.readBlock]),
    ).toEqual([
      ['grpc-1m-on', 'socket-stream-pool', 0, false],
      ['grpc-1m-on-pool', 'stream-pool', 0, false],
      ['grpc-1m-on-w2', 'socket-stream-pool', 2, false],
      ['grpc-1m-on-rb', 'socket-stream-pool', 0, true],
      ['grpc-1m-on-aligned', 'socket-stream-pool', 0, false],
      ['java-grpc-1m-on', 'socket-stream-pool', 0, false],
      ['java-grpc-1m-on-rb', 'socket-stream-pool', 0, true],
      ['s3-grpc-1m-on', 'socket-stream-pool', 0, false],
      ['sc-1m-on', 'socket-stream-pool', 0, false],
      ['sc-1m-on-aligned', 'socket-stream-pool', 0, false],
    ]);
    const onlyBlock = planCases({
      rows: ['grpc-16k'],
      aligned: true,
      readers: ['fastpath', 'java'],
      readModes: ['readblock'],
    }).map((c) => c.id);
    expect(onlyBlock).toEqual([
      'grpc-16k-on-rb',
      'grpc-16k-off-global-rb',
      'grpc-16k-off-instance-rb',
      'java-grpc-16k-on-rb',
      'java-grpc-16k-off-global-rb',
      'java-grpc-16k-off-instance-rb',
    ]);
  });

  it('reads the HTTP/2 frame sizes as a list, none by default, refusing sizes HTTP/2 does not allow', () => {
    expect(parseOzoneReadFlags([], false).http2MaxFrameBytes).toEqual([]);
    expect(
      parseOzoneReadFlags(['--h2-frame-size', '1MiB,16KiB,16777215,16k'], true).http2MaxFrameBytes,
    ).toEqual([1024 * 1024, 16 * 1024, 16_777_215]);
    expect(() => parseOzoneReadFlags(['--h2-frame-size', '16MiB'], false)).toThrow(/--h2-frame-size/);
    expect(() => parseOzoneReadFlags(['--h2-frame-size', '8KiB'], false)).toThrow(/--h2-frame-size/);
  });

  it('takes client properties for every fastpath case (--client-property)', () => {
    expect(parseOzoneReadFlags([], false).clientProperties).toEqual({});
    expect(
      parseOzoneReadFlags(['--client-property', 'ozone.client.read.chunk.readahead=0'], false)
        .clientProperties,
    ).toEqual({ 'ozone.client.read.chunk.readahead': '0' });
    expect(() => parseOzoneReadFlags(['--client-property', 'readahead'], false)).toThrow(/key=value/);
  });

  it('adds a row per further frame size on the own-session transports and the sequential rows, fastpath only', () => {
    const cases = planCases({
      rows: ['grpc-1m', 'sc-1m', 'seq-1'],
      aligned: true,
      readers: ['fastpath', 'java'],
      transports: ['socket-stream-pool', 'stream-pool', 'http2-stream-pool'],
      readModes: ['readchunk'],
      extraFrameSizes: [16 * 1024],
    });
    expect(cases.filter((c) => c.column.id === 'on').map((c) => [c.id, c.transport, c.frameBytes])).toEqual([
      ['grpc-1m-on', 'socket-stream-pool', undefined],
      ['grpc-1m-on-pool', 'stream-pool', undefined],
      ['grpc-1m-on-http2', 'http2-stream-pool', undefined],
      ['grpc-1m-on-f16k', 'socket-stream-pool', 16 * 1024],
      ['grpc-1m-on-http2-f16k', 'http2-stream-pool', 16 * 1024],
      ['grpc-1m-on-aligned', 'socket-stream-pool', undefined],
      ['java-grpc-1m-on', 'socket-stream-pool', undefined],
      ['sc-1m-on', 'socket-stream-pool', undefined],
      ['sc-1m-on-aligned', 'socket-stream-pool', undefined],
      ['seq-1-on', 'socket-stream-pool', undefined],
      ['seq-1-on-f16k', 'socket-stream-pool', 16 * 1024],
      ['java-seq-1-on', 'socket-stream-pool', undefined],
    ]);
  });

  it('reads the read modes, both by default, refusing an unknown one', () => {
    expect(parseOzoneReadFlags([], false).readModes).toEqual(['readchunk', 'readblock']);
    expect(parseOzoneReadFlags(['--read-modes', 'readblock'], true).readModes).toEqual(['readblock']);
    expect(() => parseOzoneReadFlags(['--read-modes', 'streaming'], false)).toThrow(/--read-modes/);
  });

  it('reads the read worker counts and the reader CPUs, refusing what it cannot use', () => {
    expect(parseOzoneReadFlags([], false)).toMatchObject({ readWorkers: [0, 2], readerCpus: undefined });
    expect(parseOzoneReadFlags(['--read-workers', '0,1,2,1', '--reader-cpus', '0'], true)).toMatchObject({
      readWorkers: [0, 1, 2],
      readerCpus: '0',
    });
    expect(() => parseOzoneReadFlags(['--read-workers', '65'], false)).toThrow(/--read-workers/);
    expect(() => parseOzoneReadFlags(['--reader-cpus', 'first'], false)).toThrow(/--reader-cpus/);
  });

  it('plans the EC rows for fastpath (default path) and Java, verify on and off, no S3 or aligned cases', () => {
    const cases = planCases({
      rows: ['ec-rs-3-2', 'ec-rs-3-2-down'],
      aligned: true,
      readers: ['fastpath', 'java', 's3'],
      transports: ['socket-stream-pool', 'stream-pool'],
      readWorkers: [0, 2],
      readModes: ['readchunk', 'readblock'],
    });
    expect(cases.map((c) => [c.id, c.transport, c.readWorkers, c.readBlock])).toEqual([
      ['ec-rs-3-2-on', 'socket-stream-pool', 0, false],
      ['ec-rs-3-2-off-global', 'socket-stream-pool', 0, false],
      ['java-ec-rs-3-2-on', 'socket-stream-pool', 0, false],
      ['java-ec-rs-3-2-off-global', 'socket-stream-pool', 0, false],
      ['ec-rs-3-2-down-on', 'socket-stream-pool', 0, false],
      ['ec-rs-3-2-down-off-global', 'socket-stream-pool', 0, false],
      ['java-ec-rs-3-2-down-on', 'socket-stream-pool', 0, false],
      ['java-ec-rs-3-2-down-off-global', 'socket-stream-pool', 0, false],
    ]);
  });

  it('plans the sequential rows for fastpath and Java, ReadChunk and ReadBlock, verify on and off, no S3 or aligned cases', () => {
    const cases = planCases({
      rows: ['seq-1', 'seq-16'],
      aligned: true,
      readers: ['fastpath', 'java', 's3'],
      transports: ['socket-stream-pool', 'stream-pool'],
      readWorkers: [0, 2],
      readModes: ['readchunk', 'readblock'],
    });
    expect(cases.map((c) => [c.id, c.transport, c.readWorkers, c.readBlock])).toEqual([
      ['seq-1-on', 'socket-stream-pool', 0, false],
      ['seq-1-off-global', 'socket-stream-pool', 0, false],
      ['seq-1-on-rb', 'socket-stream-pool', 0, true],
      ['seq-1-off-global-rb', 'socket-stream-pool', 0, true],
      ['java-seq-1-on', 'socket-stream-pool', 0, false],
      ['java-seq-1-off-global', 'socket-stream-pool', 0, false],
      ['java-seq-1-on-rb', 'socket-stream-pool', 0, true],
      ['java-seq-1-off-global-rb', 'socket-stream-pool', 0, true],
      ['seq-16-on', 'socket-stream-pool', 0, false],
      ['seq-16-off-global', 'socket-stream-pool', 0, false],
      ['seq-16-on-rb', 'socket-stream-pool', 0, true],
      ['seq-16-off-global-rb', 'socket-stream-pool', 0, true],
      ['java-seq-16-on', 'socket-stream-pool', 0, false],
      ['java-seq-16-off-global', 'socket-stream-pool', 0, false],
      ['java-seq-16-on-rb', 'socket-stream-pool', 0, true],
      ['java-seq-16-off-global-rb', 'socket-stream-pool', 0, true],
    ]);
    expect(cases.every((c) => !c.aligned && c.row.sequential !== undefined)).toBe(true);
    // One read mode: that mode's cases only.
    expect(
      planCases({ rows: ['seq-16'], aligned: false, readers: ['fastpath'], readModes: ['readblock'] }).map(
        (c) => c.id,
      ),
    ).toEqual(['seq-16-on-rb', 'seq-16-off-global-rb']);
    expect(
      planCases({ rows: ['seq-16'], aligned: false, readers: ['java'], readModes: ['readchunk'] }).map(
        (c) => c.id,
      ),
    ).toEqual(['java-seq-16-on', 'java-seq-16-off-global']);
  });

  it('gives the EC rows one file set, beside one per bytes-per-checksum setting', () => {
    expect(fileSetId(READ_ROWS['ec-rs-3-2'])).toBe('ec-rs-3-2-1024k');
    expect(fileSetId(READ_ROWS['ec-rs-3-2-down'])).toBe('ec-rs-3-2-1024k');
    expect(fileSetId(READ_ROWS['grpc-16k'])).toBe('bpc-16384');
    expect(fileSetId(READ_ROWS['sc-16k'])).toBe('bpc-16384');
  });

  it('runs the cases of a row with a datanode down back to back, the unit rotating with the round', () => {
    const down = (id: string): boolean => id.startsWith('d');
    const items = ['a', 'd1', 'b', 'd2', 'c'];
    expect(roundUnits(items, 0, down)).toEqual([
      { down: false, items: ['a'] },
      { down: true, items: ['d1', 'd2'] },
      { down: false, items: ['b'] },
      { down: false, items: ['c'] },
    ]);
    expect(roundUnits(items, 1, down)).toEqual([
      { down: true, items: ['d2', 'd1'] },
      { down: false, items: ['b'] },
      { down: false, items: ['c'] },
      { down: false, items: ['a'] },
    ]);
    expect(roundUnits(['a', 'b'], 1, down)).toEqual([
      { down: false, items: ['b'] },
      { down: false, items: ['a'] },
    ]);
  });

  it('rotates the case order by the round', () => {
    expect(roundOrder(['a', 'b', 'c'], 0)).toEqual(['a', 'b', 'c']);
    expect(roundOrder(['a', 'b', 'c'], 4)).toEqual(['b', 'c', 'a']);
  });
});
