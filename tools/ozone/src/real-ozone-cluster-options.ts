import { checkInteger, checkNonEmptyString, InvalidOptionError } from '@fastpath/core';
import type { RealOzoneSecurityOptions } from './secure-ozone-configuration.js';

/** Options of {@link startRealOzoneCluster}; every field has a default. */
export interface RealOzoneClusterOptions {
  /** Datanodes in the MiniOzoneCluster (1-9). With 3 or more, keys default to RATIS/THREE. */
  datanodes?: number;
  /** Java heap of the one JVM that runs SCM, OM and every datanode. */
  heapMb?: number;
  /** Bound on the JVM start until every datanode is registered and a pipeline is open. */
  startTimeoutMs?: number;
  /** Bound on one `writeKeys` call (64 MiB RATIS/THREE keys take seconds on 2 cores). */
  writeTimeoutMs?: number;
  /** Bound on a clean stop before the JVM is killed. */
  stopTimeoutMs?: number;
  /** Fresh JVMs tried when a port the cluster picked was taken before it bound it. */
  portRetries?: number;
  /**
   * Ozone configuration keys set on the cluster (ozone-site.xml names), on top of
   * {@link DEFAULT_OZONE_CLUSTER_CONFIGURATION}; e.g. `{ 'ozone.scm.block.size': '1MB' }` for keys
   * of several blocks. `ozone.om.grpc.port` is chosen by the launcher and cannot be set here.
   */
  configuration?: Readonly<Record<string, string>>;
  /**
   * Also start Ozone's S3 gateway in the cluster's JVM (loopback, a free port) before resolving;
   * see `RealOzoneCluster.startS3Gateway`, which starts it on a running cluster too.
   */
  s3Gateway?: boolean;
  /**
   * OM HA: run Apache Ozone's MiniOzoneHAClusterImpl with this many OMs (`omNode-1`…, each with a
   * gRPC port of its own) instead of one OM. 0: one OM. Default: 0.
   */
  omHa?: number;
  /** The OM service id in HA mode (`ozone.om.service.ids`). Default: `omservice`. */
  omServiceId?: string;
  /**
   * A secure cluster: Kerberos for SCM, OM and datanodes against `security.kdc` (principals and
   * keytabs made there per start), block and container tokens, the SCM's CA, and with
   * `security.tls` gRPC TLS and RPC privacy. Ozone's Java client of the cluster's calls then runs
   * as the client principal. Default: none (security off).
   */
  security?: RealOzoneSecurityOptions;
  /** Progress of a first jar resolution. Default: stderr. */
  onProgress?: (line: string) => void;
}

/**
 * Settings that keep a 3-datanode cluster in one JVM modest on a small machine: fewer handler
 * threads than Ozone's production defaults (100 per RPC server), no HTTP servers (nothing here
 * reads them), and the servers that take a bind host on 127.0.0.1.
 */
export const DEFAULT_OZONE_CLUSTER_CONFIGURATION: Readonly<Record<string, string>> = Object.freeze({
  'ozone.om.handler.count.key': '8',
  'ozone.om.grpc.read.thread.num': '4',
  'ozone.scm.handler.count.key': '8',
  'ozone.scm.client.handler.count.key': '8',
  'ozone.scm.block.handler.count.key': '8',
  'ozone.scm.datanode.handler.count.key': '8',
  'hdds.datanode.handler.count': '4',
  'hdds.container.ratis.num.write.chunk.threads.per.volume': '4',
  'hdds.datanode.read.chunk.threads.per.volume': '4',
  'ozone.om.http.enabled': 'false',
  'ozone.scm.http.enabled': 'false',
  'hdds.datanode.http.enabled': 'false',
  'hdds.datanode.client.bind.host': '127.0.0.1',
  'ozone.scm.client.bind.host': '127.0.0.1',
  'ozone.scm.block.client.bind.host': '127.0.0.1',
  'ozone.scm.datanode.bind.host': '127.0.0.1',
  // Ratis servers take Ratis's own keys through Ozone's prefixes (hdds.ratis.* for datanodes,
  // ozone.om.ha.* for the OM).
  'hdds.ratis.raft.grpc.server.host': '127.0.0.1',
  'hdds.ratis.raft.grpc.admin.host': '127.0.0.1',
  'hdds.ratis.raft.grpc.client.host': '127.0.0.1',
  'ozone.om.ha.raft.grpc.server.host': '127.0.0.1',
});

export const DEFAULT_REAL_OZONE_CLUSTER_OPTIONS: Readonly<
  Required<Omit<RealOzoneClusterOptions, 'onProgress' | 'security'>>
> = Object.freeze({
  datanodes: 3,
  heapMb: 768,
  startTimeoutMs: 300_000,
  writeTimeoutMs: 600_000,
  stopTimeoutMs: 60_000,
  portRetries: 3,
  s3Gateway: false,
  configuration: DEFAULT_OZONE_CLUSTER_CONFIGURATION,
  omHa: 0,
  omServiceId: 'omservice',
});

/**
 * The heap when `heapMb` is not given and `omHa` is: three OMs (each with its RocksDB, Ratis log
 * and caches) beside SCM and the datanodes in one JVM.
 */
export const DEFAULT_OM_HA_HEAP_MB = 1536;

export interface ResolvedRealOzoneClusterOptions {
  readonly datanodes: number;
  readonly heapMb: number;
  readonly startTimeoutMs: number;
  readonly writeTimeoutMs: number;
  readonly stopTimeoutMs: number;
  readonly portRetries: number;
  readonly s3Gateway: boolean;
  readonly configuration: Readonly<Record<string, string>>;
  readonly omHa: number;
  readonly omServiceId: string;
  readonly security: Readonly<Required<RealOzoneSecurityOptions>> | undefined;
}

/** Checks every option before anything is started; throws `InvalidOptionError` naming the field. */
export function resolveRealOzoneClusterOptions(
  options: RealOzoneClusterOptions,
): ResolvedRealOzoneClusterOptions {
  const d = DEFAULT_REAL_OZONE_CLUSTER_OPTIONS;
  const configuration: Record<string, string> = { ...DEFAULT_OZONE_CLUSTER_CONFIGURATION };
  for (const [key, value] of Object.entries(options.configuration ?? {})) {
    checkNonEmptyString('configuration', key);
    if (typeof value !== 'string')
      throw new InvalidOptionError(`configuration.${key}`, 'expected a string value');
    if (key === 'ozone.om.grpc.port') {
      throw new InvalidOptionError(`configuration.${key}`, 'the launcher picks a free loopback port itself');
    }
    if (/[\r\n]/.test(key) || /[\r\n]/.test(value)) {
      throw new InvalidOptionError(`configuration.${key}`, 'keys and values cannot contain line breaks');
    }
    configuration[key] = value;
  }
  const s3Gateway = options.s3Gateway ?? d.s3Gateway;
  if (typeof s3Gateway !== 'boolean') throw new InvalidOptionError('s3Gateway', 'expected a boolean');
  const omHa = checkInteger('omHa', options.omHa ?? d.omHa, 0, 5);
  if (omHa === 1) throw new InvalidOptionError('omHa', 'expected 0 (one OM) or 2 to 5 OMs');
  const omServiceId = checkNonEmptyString('omServiceId', options.omServiceId ?? d.omServiceId);
  if (!/^[A-Za-z0-9][A-Za-z0-9-]*$/.test(omServiceId))
    throw new InvalidOptionError('omServiceId', 'letters, digits and dashes');
  let security: Readonly<Required<RealOzoneSecurityOptions>> | undefined;
  if (options.security !== undefined) {
    const { kdc, tls = false } = options.security;
    if (typeof kdc?.keytab !== 'function' || typeof kdc.realm !== 'string')
      throw new InvalidOptionError(
        'security.kdc',
        'expected a KDC (realm, principal(), keytab(), javaOptions())',
      );
    if (typeof tls !== 'boolean') throw new InvalidOptionError('security.tls', 'expected a boolean');
    if (options.s3Gateway === true)
      throw new InvalidOptionError('s3Gateway', 'the S3 gateway runs only on a cluster without security');
    security = Object.freeze({ kdc, tls });
  }
  return {
    security,
    datanodes: checkInteger('datanodes', options.datanodes ?? d.datanodes, 1, 9),
    heapMb: checkInteger(
      'heapMb',
      options.heapMb ?? (omHa > 0 ? DEFAULT_OM_HA_HEAP_MB : d.heapMb),
      256,
      65_536,
    ),
    omHa,
    omServiceId,
    startTimeoutMs: checkInteger('startTimeoutMs', options.startTimeoutMs ?? d.startTimeoutMs, 1),
    writeTimeoutMs: checkInteger('writeTimeoutMs', options.writeTimeoutMs ?? d.writeTimeoutMs, 1),
    stopTimeoutMs: checkInteger('stopTimeoutMs', options.stopTimeoutMs ?? d.stopTimeoutMs, 1),
    portRetries: checkInteger('portRetries', options.portRetries ?? d.portRetries, 0, 10),
    s3Gateway,
    configuration: Object.freeze(configuration),
  };
}
