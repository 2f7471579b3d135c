import type { OzoneJars } from './ozone-jars.js';

/** What one cold Java client reads: the first `readBytes` of a key, through the OM at `omRpcAddress`. */
export interface JavaColdReadInput {
  /** The OM's Hadoop RPC address (`RealOzoneCluster.omRpcAddress`). */
  readonly omRpcAddress: string;
  readonly volume: string;
  readonly bucket: string;
  readonly key: string;
  readonly readBytes: number;
}

/** The JSON line a cold Java client prints (phase times in ms, measured inside the JVM). */
export interface JavaColdReadTimes {
  /** First line of `main` to a constructed `OzoneClient`. */
  readonly createMs: number;
  /** Volume, bucket and key lookups. */
  readonly metadataMs: number;
  /** Opening the key and reading: the first datanode contact. */
  readonly readMs: number;
  readonly closeMs: number;
  readonly bytesRead: number;
  /** SHA-256 (hex) of the bytes read. */
  readonly sha256: string;
}

/**
 * The command of one cold Ozone Java client (`ColdRead` in the fixture's launcher classes): a
 * fresh JVM with the cluster's classpath that creates an `OzoneClient`, looks the key up, reads
 * `readBytes` and exits, printing {@link JavaColdReadTimes} as one line. JVM options are Java's
 * defaults, as a user's short-lived client process has them; only the logging goes to stderr.
 * Exit codes: 0 read, 1 failed (cause on stderr), 2 wrong arguments.
 */
export function javaColdReadCommand(
  jars: OzoneJars,
  input: JavaColdReadInput,
): { file: string; args: string[] } {
  return {
    file: jars.javaPath,
    args: [
      `-Dlog4j.configuration=file:${jars.log4jConfig}`,
      '-cp',
      jars.classpath,
      'fastpath.ozonefixture.ColdRead',
      input.omRpcAddress,
      input.volume,
      input.bucket,
      input.key,
      String(input.readBytes),
    ],
  };
}
