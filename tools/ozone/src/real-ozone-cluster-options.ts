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
  /**
   * The OM's `ozone.replication.allowed-configs`: a Java regular expression that a key's or
   * bucket's replication must match, in Ozone's config format (`RATIS/THREE`, `EC/3-2-1024k`: data,
   * parity and the cell in KiB, no codec); anything else is refused (`INVALID_REQUEST`). Ozone's
   * default ({@link OZONE_DEFAULT_ALLOWED_REPLICATION_CONFIGS}) allows rs 3-2, 6-3 and 10-4 with
   * cells of 512 KiB to 4 MiB only; {@link SMALL_CELL_ALLOWED_REPLICATION_CONFIGS} adds cells down
   * to 1 KiB and 2-1, so that keys of several stripes and block groups stay small.
   * `writeKeys` checks EC keys against it before sending. Default: Ozone's.
   */
  allowedReplicationConfigs?: string;
  /**
   * SCM's `ozone.scm.ec.pipeline.minimum`: EC pipelines (groups of d + p datanodes) SCM keeps open
   * per EC config before it reuses one. Ozone's default is 5; 1, as Ozone's own EC container tests
   * set it, puts every key of one EC config on the same datanodes with the same replica indexes,
   * so stopping one datanode degrades every such key. Default: 1.
   */
  ecPipelineMinimum?: number;
  /**
   * Ratis streaming writes on the datanodes (`hdds.container.ratis.datastream.enabled`): each
   * datanode serves Ratis's DataStream protocol on a `RATIS_DATASTREAM` port of its own (loopback,
   * a free port) and lists it in the pipelines SCM hands out, so that writers with
   * `ozone.fs.datastream.enabled` (and `KeyToWrite.dataStream`) stream their blocks there.
   * Default: false (Ozone's default).
   */
  dataStream?: boolean;
  /** Progress of a first jar resolution. Default: stderr. */
  onProgress?: (line: string) => void;
}

/** Ozone 2.2.0's own `ozone.replication.allowed-configs` (`ReplicationConfigValidator`). */
export const OZONE_DEFAULT_ALLOWED_REPLICATION_CONFIGS =
  '^((STANDALONE|RATIS)/(ONE|THREE))|(EC/(3-2|6-3|10-4)-(512|1024|2048|4096)k)$';

/**
 * Ozone's default widened for tests: EC 2-1, 3-2, 6-3 and 10-4 (rs or xor; the config format
 * leaves the codec out) with cells of 1 KiB to 4 MiB in powers of two, e.g. `rs-3-2-64k`, whose
 * stripe is 192 KiB. (Ozone's `TestECKeyOutputStream` adds `1k` cells the same way.)
 */
export const SMALL_CELL_ALLOWED_REPLICATION_CONFIGS =
  '^((STANDALONE|RATIS)/(ONE|THREE))|(EC/(2-1|3-2|6-3|10-4)-(1|2|4|8|16|32|64|128|256|512|1024|2048|4096)k)$';

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
  // The Ratis DataStream server (Netty), when hdds.container.ratis.datastream.enabled is on.
  'hdds.ratis.raft.netty.dataStream.host': '127.0.0.1',
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
  allowedReplicationConfigs: OZONE_DEFAULT_ALLOWED_REPLICATION_CONFIGS,
  ecPipelineMinimum: 1,
  dataStream: false,
});

/** Ozone keys that have a typed option of their own, which sets them. */
const TYPED_KEYS: Readonly<Record<string, keyof RealOzoneClusterOptions>> = Object.freeze({
  'ozone.replication.allowed-configs': 'allowedReplicationConfigs',
  'ozone.scm.ec.pipeline.minimum': 'ecPipelineMinimum',
  'hdds.container.ratis.datastream.enabled': 'dataStream',
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
  readonly allowedReplicationConfigs: string;
  readonly ecPipelineMinimum: number;
  readonly dataStream: boolean;
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
    const typed = TYPED_KEYS[key];
    if (typed !== undefined) {
      throw new InvalidOptionError(`configuration.${key}`, `set it with the option ${typed}`);
    }
    configuration[key] = value;
  }
  const allowedReplicationConfigs = options.allowedReplicationConfigs ?? d.allowedReplicationConfigs;
  if (typeof allowedReplicationConfigs !== 'string' || /[\r\n]/.test(allowedReplicationConfigs))
    throw new InvalidOptionError('allowedReplicationConfigs', 'expected a regular expression on one line');
  const ecPipelineMinimum = checkInteger(
    'ecPipelineMinimum',
    options.ecPipelineMinimum ?? d.ecPipelineMinimum,
    1,
    100,
  );
  configuration['ozone.replication.allowed-configs'] = allowedReplicationConfigs;
  configuration['ozone.scm.ec.pipeline.minimum'] = String(ecPipelineMinimum);
  const dataStream = options.dataStream ?? d.dataStream;
  if (typeof dataStream !== 'boolean') throw new InvalidOptionError('dataStream', 'expected a boolean');
  configuration['hdds.container.ratis.datastream.enabled'] = String(dataStream);
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
    allowedReplicationConfigs,
    ecPipelineMinimum,
    dataStream,
  };
}
