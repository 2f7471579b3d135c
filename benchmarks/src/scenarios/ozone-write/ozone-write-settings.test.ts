import { BenchmarkUsageError } from '../../harness/index.js';
import { realClusterHeapMb } from './write-cluster.js';
import {
  DEFAULT_PASSES,
  DEFAULT_SHAPES,
  EC_REPLICATION,
  estimateRunMs,
  formatBytes,
  parseOzoneWriteFlags,
  QUICK_PASSES,
  QUICK_SHAPES,
  rowLabel,
} from './ozone-write-settings.js';

const MiB = 1024 * 1024;

describe('parseOzoneWriteFlags', () => {
  it("gives issue 27's rows on the embedded cluster by default, fastpath alone", () => {
    const s = parseOzoneWriteFlags([], false);
    expect(s).toMatchObject({
      cluster: 'embedded',
      rows: ['single', 'parallel', 'small-files'],
      shapes: DEFAULT_SHAPES,
      passes: DEFAULT_PASSES,
      writeBytes: MiB,
      java: false,
      crossRead: false,
      datanodes: 3,
      profile: false,
    });
    expect(s.warmups).toEqual([
      {
        id: 'parallel',
        writers: 16,
        keySizeBytes: 4 * MiB,
        keysPerWriter: 1,
        replication: 'THREE',
        dataStream: false,
      },
    ]);
    expect(s.dataStream).toBe(false);
    expect(parseOzoneWriteFlags(['--profile'], true).profile).toBe(true);
    expect(estimateRunMs(parseOzoneWriteFlags(['--profile'], true))).toBeGreaterThan(
      estimateRunMs(parseOzoneWriteFlags([], true)),
    );
    expect(s.shapes.single).toEqual({
      id: 'single',
      writers: 1,
      keySizeBytes: 256 * MiB,
      keysPerWriter: 1,
      replication: 'THREE',
      dataStream: false,
    });
    expect(s.shapes.parallel).toMatchObject({ writers: 16, keySizeBytes: 16 * MiB });
    expect(s.shapes['small-files']).toMatchObject({ writers: 16, keySizeBytes: 64 * 1024 });
  });

  it('runs the Java client and its read-back with --cluster real, unless told not to', () => {
    expect(parseOzoneWriteFlags(['--cluster', 'real'], false)).toMatchObject({ java: true, crossRead: true });
    expect(parseOzoneWriteFlags(['--cluster=real', '--no-cross-read'], false)).toMatchObject({
      java: true,
      crossRead: false,
    });
    expect(parseOzoneWriteFlags(['--cluster', 'real', '--no-java'], false)).toMatchObject({
      java: false,
      crossRead: false,
    });
  });

  it('shrinks the shapes and passes with --quick, and lets flags override them', () => {
    const q = parseOzoneWriteFlags([], true);
    expect(q.shapes).toEqual(QUICK_SHAPES);
    expect(q.passes).toBe(QUICK_PASSES);
    expect(q.shapes.single.keySizeBytes).toBeLessThan(DEFAULT_SHAPES.single.keySizeBytes);
    expect(estimateRunMs(q)).toBeLessThan(estimateRunMs(parseOzoneWriteFlags([], false)));
    const o = parseOzoneWriteFlags(
      [
        '--single-size',
        '32MiB',
        '--parallel-size=2MiB',
        '--small-files',
        '3',
        '--passes',
        '4',
        '--rows',
        'small-files,single',
        '--no-warmup',
      ],
      true,
    );
    expect(o).toMatchObject({ passes: 4, rows: ['small-files', 'single'], warmups: [] });
    expect(o.shapes.single.keySizeBytes).toBe(32 * MiB);
    expect(o.shapes.parallel.keySizeBytes).toBe(2 * MiB);
    // The EC rows keep their replicated twins' shapes.
    expect(o.shapes['ec-rs-3-2-single'].keySizeBytes).toBe(32 * MiB);
    expect(o.shapes['ec-rs-3-2'].keySizeBytes).toBe(2 * MiB);
    expect(o.shapes['small-files'].keysPerWriter).toBe(3);
  });

  it("takes the Ratis streams' session for fastpath's client, the client's default when not named", () => {
    expect(parseOzoneWriteFlags([], false).ratisGrpcChannel).toBeUndefined();
    expect(parseOzoneWriteFlags(['--ratis-grpc-channel', 'socket'], false).ratisGrpcChannel).toBe('socket');
    expect(() => parseOzoneWriteFlags(['--ratis-grpc-channel', 'grpc-js'], false)).toThrow(
      /--ratis-grpc-channel/,
    );
  });

  it("takes client properties for fastpath's clients (--client-property)", () => {
    expect(parseOzoneWriteFlags([], false).clientProperties).toEqual({});
    expect(
      parseOzoneWriteFlags(['--client-property', 'ozone.client.stream.buffer.max.size=128MB'], false)
        .clientProperties,
    ).toEqual({ 'ozone.client.stream.buffer.max.size': '128MB' });
    expect(() => parseOzoneWriteFlags(['--client-property', 'buffer'], false)).toThrow(/key=value/);
  });

  it('rejects unknown flags, rows and clusters, bad sizes, and Java flags without the real cluster', () => {
    expect(() => parseOzoneWriteFlags(['--writers', '4'], false)).toThrow(BenchmarkUsageError);
    expect(() => parseOzoneWriteFlags(['--rows', 'huge'], false)).toThrow(/unknown item "huge"/);
    expect(() => parseOzoneWriteFlags(['--cluster', 'docker'], false)).toThrow(/unknown item "docker"/);
    expect(() => parseOzoneWriteFlags(['--cluster', 'real,embedded'], false)).toThrow(/--cluster takes one/);
    expect(() => parseOzoneWriteFlags(['--write-size', '0'], false)).toThrow(/--write-size must be a size/);
    expect(() => parseOzoneWriteFlags(['--single-size', '3 parsecs'], false)).toThrow(/--single-size/);
    expect(() => parseOzoneWriteFlags(['--passes', '0'], false)).toThrow(/--passes/);
    expect(() => parseOzoneWriteFlags(['--no-java'], false)).toThrow(/go with --cluster real/);
  });
});

describe('the EC rows', () => {
  it('are asked for by name, never by default, and give the cluster the 5 datanodes rs-3-2 needs', () => {
    expect(parseOzoneWriteFlags([], false).rows).not.toContain('ec-rs-3-2');
    expect(parseOzoneWriteFlags(['--cluster', 'real'], true).rows).toEqual([
      'single',
      'parallel',
      'small-files',
    ]);
    const ec = parseOzoneWriteFlags(['--cluster', 'real', '--rows', 'ec-rs-3-2'], false);
    expect(ec).toMatchObject({ rows: ['ec-rs-3-2'], datanodes: 5, java: true, crossRead: true });
    expect(ec.shapes['ec-rs-3-2']).toEqual({
      id: 'ec-rs-3-2',
      writers: 16,
      keySizeBytes: 16 * MiB,
      keysPerWriter: 1,
      replication: EC_REPLICATION,
      dataStream: false,
    });
    expect(ec.shapes['ec-rs-3-2-single']).toMatchObject({ writers: 1, keySizeBytes: 256 * MiB });
    expect(parseOzoneWriteFlags(['--rows', 'parallel,ec-rs-3-2-single'], true).datanodes).toBe(5);
    expect(parseOzoneWriteFlags(['--rows', 'parallel,small-files'], true).datanodes).toBe(3);
  });

  it('are warmed up as EC, beside the RATIS warm-up only when replicated rows run too', () => {
    expect(parseOzoneWriteFlags(['--rows', 'ec-rs-3-2'], true).warmups).toEqual([
      {
        id: 'ec-rs-3-2',
        writers: 4,
        keySizeBytes: 4 * MiB,
        keysPerWriter: 1,
        replication: EC_REPLICATION,
        dataStream: false,
      },
    ]);
    expect(
      parseOzoneWriteFlags(['--rows', 'ec-rs-3-2,parallel'], false).warmups.map((w) => w.replication),
    ).toEqual(['THREE', EC_REPLICATION]);
    expect(parseOzoneWriteFlags(['--rows', 'ec-rs-3-2', '--no-warmup'], false).warmups).toEqual([]);
  });

  it('are labelled with their replication, so that no two rows share a label', () => {
    expect(rowLabel(DEFAULT_SHAPES['ec-rs-3-2'])).toBe('16 writers × 16 MiB, rs-3-2-1024k');
    expect(rowLabel(DEFAULT_SHAPES['ec-rs-3-2-single'])).toBe('1 writer × 256 MiB, rs-3-2-1024k');
    const labels = Object.values(DEFAULT_SHAPES).map(rowLabel);
    expect(new Set(labels).size).toBe(labels.length);
  });
});

describe('the streamed rows', () => {
  it("are asked for by name, are their async twins streamed, and turn the datanodes' streaming on", () => {
    expect(parseOzoneWriteFlags([], false).rows).not.toContain('stream');
    const s = parseOzoneWriteFlags(['--cluster', 'real', '--rows', 'parallel,stream,stream-single'], false);
    expect(s).toMatchObject({ dataStream: true, datanodes: 3, java: true });
    expect(s.shapes.stream).toEqual({ ...s.shapes.parallel, id: 'stream', dataStream: true });
    expect(s.shapes['stream-single']).toEqual({ ...s.shapes.single, id: 'stream-single', dataStream: true });
    // Sizes follow the flags of their twins.
    const small = parseOzoneWriteFlags(['--rows', 'stream', '--parallel-size', '2MiB'], false);
    expect(small.shapes.stream.keySizeBytes).toBe(2 * MiB);
  });

  it('are warmed up streamed, beside the async warm-up only when async rows run too', () => {
    expect(parseOzoneWriteFlags(['--rows', 'stream'], true).warmups).toEqual([
      {
        id: 'stream',
        writers: 4,
        keySizeBytes: 4 * MiB,
        keysPerWriter: 1,
        replication: 'THREE',
        dataStream: true,
      },
    ]);
    expect(
      parseOzoneWriteFlags(['--rows', 'parallel,stream'], false).warmups.map((w) => w.dataStream),
    ).toEqual([false, true]);
  });

  it('are labelled as streamed', () => {
    expect(rowLabel(DEFAULT_SHAPES.stream)).toBe('16 writers × 16 MiB, streamed');
    expect(rowLabel(DEFAULT_SHAPES['stream-single'])).toBe('1 writer × 256 MiB, streamed');
  });
});

describe('row labels', () => {
  it('name writers, keys per writer and the key size in binary units', () => {
    expect(rowLabel(DEFAULT_SHAPES.single)).toBe('1 writer × 256 MiB');
    expect(rowLabel(DEFAULT_SHAPES.parallel)).toBe('16 writers × 16 MiB');
    expect(rowLabel(DEFAULT_SHAPES['small-files'])).toBe('16 writers × 32 keys × 64 KiB');
    expect(formatBytes(1000)).toBe('1000 B');
    expect(formatBytes(3 * 1024 ** 3)).toBe('3 GiB');
  });
});

describe("the real cluster's heap", () => {
  it('grows with the largest pass of the rows run, within 4 GiB', () => {
    const full = parseOzoneWriteFlags(['--cluster', 'real'], false);
    const quick = parseOzoneWriteFlags(['--cluster', 'real'], true);
    // Full: 256 MiB in flight per pass (1 × 256 MiB, 16 × 16 MiB); quick: 64 MiB.
    expect(realClusterHeapMb(full)).toBe(1536 + 6 * 256);
    expect(realClusterHeapMb(quick)).toBe(1536 + 6 * 64);
    expect(realClusterHeapMb({ ...full, rows: ['small-files'] })).toBe(1536 + 6 * 32);
    expect(realClusterHeapMb(parseOzoneWriteFlags(['--single-size', '2GiB'], false))).toBe(4096);
  });
});
