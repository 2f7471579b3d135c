// The headline tables of the four source documents, as published: the figures are facts copied
// from the documents, cell for cell; the ratios below each table are computed from those cells
// (or printed in the table, where the source prints them). The documents themselves are not part
// of the repository; each table names the document it comes from.

/** One source document's headline table. */
export interface PublishedTable {
  /** The JIRA key of the source document. */
  readonly document: string;
  /** Where in the document the table stands, and what it measured. */
  readonly caption: string;
  /** The set-up the figures come from, in a few words. */
  readonly setting: string;
  readonly columns: readonly string[];
  readonly rows: readonly (readonly string[])[];
  /** The source's ratios, per row of its table: what our ratios are held against. */
  readonly ratios: readonly PublishedRatio[];
}

export interface PublishedRatio {
  /** The row it belongs to (the first cell of that row, or a name for a derived ratio). */
  readonly row: string;
  readonly label: string;
  readonly value: number;
}

const ratio = (row: string, label: string, numerator: number, denominator: number): PublishedRatio => ({
  row,
  label,
  value: numerator / denominator,
});

/** HADOOP-16011: the JMH benchmark of the issue description, concurrency 10. */
export const HADOOP_16011_TABLE: PublishedTable = Object.freeze({
  document: 'HADOOP-16011',
  caption: 'JMH throughput of drawing secure random bytes, concurrency 10 (issue description)',
  setting: 'JMH on a laptop, 10 threads',
  columns: ['Benchmark', 'Mode', 'Score', 'Units'],
  rows: [
    ['MyBenchmark.testHadoop [with libhadoop.so]', 'thrpt', '1293.000', 'ops/s'],
    ['MyBenchmark.testHadoop [without libhadoop.so]', 'thrpt', '461515.697', 'ops/s'],
    ['MyBenchmark.testNewSecureRandom', 'thrpt', '43413.640', 'ops/s'],
    ['MyBenchmark.testSha1PrngNew', 'thrpt', '395515.000', 'ops/s'],
    ['MyBenchmark.testSha1PrngShared', 'thrpt', '164488.713', 'ops/s'],
    ['MyBenchmark.testSha1PrngThread', 'thrpt', '4295123.210', 'ops/s'],
  ],
  ratios: [
    ratio(
      'thread-local generator',
      'thread-local generator ÷ device reader per connection',
      4295123.21,
      1293,
    ),
    ratio('generator per call', 'generator per call ÷ device reader per connection', 461515.697, 1293),
  ],
});

/** HADOOP-20045: the end-to-end KMS HTTP benchmark of the pull request. */
export const HADOOP_20045_TABLE: PublishedTable = Object.freeze({
  document: 'HADOOP-20045',
  caption: 'Median successful total HTTP requests per second across three repetitions',
  setting: 'one KMS JVM, one standalone ZooKeeper JVM, a load-generator JVM, 32 in flight, JDK 17',
  columns: ['Verify:create', 'Original requests/s', 'Fixed requests/s', 'Fixed/original'],
  rows: [
    ['100:0', '30,811', '30,150', '0.98x'],
    ['99:1', '17,672', '26,885', '1.52x'],
    ['95:5', '5,349', '23,949', '4.48x'],
    ['90:10', '3,103', '23,174', '7.47x'],
  ],
  ratios: [
    { row: '100:0', label: 'fixed / original', value: 0.98 },
    { row: '99:1', label: 'fixed / original', value: 1.52 },
    { row: '95:5', label: 'fixed / original', value: 4.48 },
    { row: '90:10', label: 'fixed / original', value: 7.47 },
  ],
});

/** HDDS-16783: "Expected gain", 64 KB random positional reads, 16 threads. */
export const HDDS_16783_TABLE: PublishedTable = Object.freeze({
  document: 'HDDS-16783',
  caption:
    '64KB random positional reads on one shared input stream per file, 16 threads, operations per second, median of three rounds',
  setting: 'MiniOzoneCluster with 3 datanodes in one JVM, 14 CPUs (arm64), page cache, security off',
  columns: ['Read path', 'Verify on', 'Verify off'],
  rows: [
    ['gRPC, 1MB bytes per checksum', '6,100', '22,600'],
    ['gRPC, 16KB bytes per checksum', '22,100', '22,600'],
    ['Short-circuit read, 1MB bytes per checksum', '38,500', '937,800'],
    ['Short-circuit read, 16KB bytes per checksum', '534,900', '911,400'],
  ],
  ratios: [
    ratio('gRPC, 1MB bytes per checksum', 'verify off / on', 22600, 6100),
    ratio('gRPC, 16KB bytes per checksum', 'verify off / on', 22600, 22100),
    ratio('Short-circuit read, 1MB bytes per checksum', 'verify off / on', 937800, 38500),
    ratio('Short-circuit read, 16KB bytes per checksum', 'verify off / on', 911400, 534900),
  ],
});

/** HDDS-17357: the cold-client probe, ten interleaved rounds, medians. */
export const HDDS_17357_TABLE: PublishedTable = Object.freeze({
  document: 'HDDS-17357',
  caption: 'The cold-client probe on a secure compose cluster, ten interleaved rounds, medians',
  setting: 'fresh JVM per round, Kerberos + gRPC TLS, JDK 25',
  columns: ['client', 'create the client', 'read', 'total (JVM start to end)'],
  rows: [
    ['as today', '757 ms', '575 ms', '1,714 ms'],
    ['Netty warmed up in the background', '754 ms', '523 ms', '1,650 ms (−64 ms)'],
    ['Netty and netty-tcnative warmed up', '724 ms', '480 ms', '1,578 ms (−136 ms)'],
  ],
  ratios: [
    ratio('transport warmed up', 'total ÷ as today', 1650, 1714),
    ratio('full warm-up', 'total ÷ as today', 1578, 1714),
  ],
});

/** Looks a source's ratio up by row and label; null when the source has none. */
export function sourceRatio(table: PublishedTable | null, row: string, label: string): number | null {
  return table?.ratios.find((r) => r.row === row && r.label === label)?.value ?? null;
}
