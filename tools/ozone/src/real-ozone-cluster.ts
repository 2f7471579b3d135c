import { closeSync, openSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, open, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { hostname, networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { checkInteger, InvalidOptionError } from '@fastpath/core';
import { logTail, pollUntil, runProcess } from '@fastpath/jvm-fixture';
import { spawnLauncher, type LauncherProcess } from './internal/launcher-process.js';
import { parseEcReplication, type EcReplication } from './ec-replication.js';
import { checkKeysToWrite, checkOzoneName, type KeyToWrite, type WrittenKey } from './key-spec.js';
import {
  OzoneClusterExitedError,
  OzoneClusterTimeoutError,
  OzoneDatanodeControlError,
  OzoneFixtureStateError,
  OzoneKeyReadError,
  OzoneKeyWriteError,
  OzoneOmControlError,
  OzoneS3GatewayError,
} from './ozone-fixture-errors.js';
import { prepareOzoneJars, type OzoneJars } from './ozone-jars.js';
import {
  resolveRealOzoneClusterOptions,
  type RealOzoneClusterOptions,
  type ResolvedRealOzoneClusterOptions,
} from './real-ozone-cluster-options.js';
import {
  OZONE_CLIENT_PRINCIPAL,
  OZONE_DATANODE_TLS_HOST,
  OZONE_SERVICE_PRINCIPAL,
  secureOzoneConfiguration,
} from './secure-ozone-configuration.js';

/** What the OM holds of a committed key, as Ozone's Java side reads it. */
export type JavaKeyLookup =
  | { found: false }
  | {
      found: true;
      dataSize: number;
      /** The key's replication as the OM recorded it, in `KeyToWrite.replication`'s forms (`RATIS/THREE`, `rs-3-2-64k`). */
      replication: string;
      /** For an erasure-coded key its replication, parsed; else `undefined`. */
      ec: EcReplication | undefined;
      /** The key's metadata; `hsyncClientId` while an hsync'ed key is still open. */
      metadata: Record<string, string>;
      /** In key order; for an EC key each is a block group. */
      blocks: JavaKeyBlock[];
    };

/** One block of a key as the OM recorded it (for an EC key, one block group), and where it is. */
export interface JavaKeyBlock {
  containerId: bigint;
  localId: bigint;
  /** 0 for an EC block group: its PutBlocks do not go through Ratis. */
  blockCommitSequenceId: bigint;
  /** Key bytes in the block; for a block group the data bytes, parity not counted. */
  lengthBytes: number;
  /** Offset of the block's first byte in the key (the lengths of the blocks before it). */
  offsetInKey: number;
  /**
   * The block's pipeline as the OM's lookup answers it (refreshed from SCM: while the container is
   * open, the pipeline it was written through): every member datanode with its replica index, in
   * the pipeline's order. For an EC block group the indexes are 1..d+p, index i holding internal
   * block i (data for i ≤ d, parity after); a replicated block's members carry 0.
   */
  replicas: JavaBlockReplica[];
  /**
   * What each running datanode itself holds of the block (its container set and block store),
   * in `datanodes` order; a stopped datanode is left out.
   */
  stored: JavaStoredReplica[];
}

/** A member of a block's pipeline. */
export interface JavaBlockReplica {
  datanodeUuid: string;
  /** 1..d+p for an EC block group; 0 for a replicated block. */
  replicaIndex: number;
}

/** A datanode's own copy of a block (for an EC block group, one internal block). */
export interface JavaStoredReplica {
  datanodeUuid: string;
  /** The replica index of the datanode's container (0 for a replicated container). */
  replicaIndex: number;
  /** The block's committed length on this datanode (`BlockData.size`): an internal block's own length. */
  lengthBytes: number;
  /**
   * The block's file on disk (`<chunks dir>/<localId>.block`, Ozone's FILE_PER_BLOCK layout), what
   * `corruptBlockReplica` changes; `null` when the datanode has no file for it (an internal block
   * that received no cell, only its PutBlock).
   */
  blockFile: string | null;
}

/** What Ozone's Java client read of a whole key, checksums verified. */
export interface JavaKeyRead {
  readonly bytesRead: number;
  /** SHA-256 of the bytes read, lower-case hex. */
  readonly sha256: string;
}

/**
 * Counters of Ozone's Java client in the cluster's JVM (its `XceiverClientMetrics`, one per JVM),
 * cumulative since the start: take the difference around a read.
 */
export interface JavaClientCounters {
  /**
   * EC block groups read through the client's reconstruction reader: its `ECBlockInputStreamProxy`
   * counts one each time it starts that reader, from the start (the pipeline lacks a data replica
   * the group needs) or failing over to it (a replica's read failed: a datanode down, a checksum
   * mismatch). A healthy EC read, or a replicated key's, adds none.
   */
  readonly ecReconstructionReads: number;
  /** Reconstruction reads that failed in turn (too few replicas left), the read failing with them. */
  readonly ecReconstructionFailures: number;
}

/** What a client needs of a secure cluster (`RealOzoneCluster.security`). */
export interface RealOzoneSecurity {
  readonly realm: string;
  /** The principal SCM, OM and every datanode log in as (`om/localhost@<realm>`). */
  readonly servicePrincipal: string;
  /** The OM's principal as a client must name it (`ozone.om.kerberos.principal`): the service principal. */
  readonly omPrincipal: string;
  /** The user principal the cluster's Java client runs as (`test@<realm>`). */
  readonly userPrincipal: string;
  /** The user principal's keytab (in the KDC's folder). */
  readonly userKeytab: string;
  /** The user's name as Hadoop shortens it, what the OM records as a key's owner (`test`). */
  readonly userShortName: string;
  /** Whether gRPC TLS is on (`hdds.grpc.tls.enabled`). */
  readonly tls: boolean;
  /** `hadoop.rpc.protection` of every Hadoop RPC server: `privacy` with `tls`, else `authentication`. */
  readonly rpcProtection: 'authentication' | 'privacy';
  /**
   * PEM file of the CA certificates the OM hands its clients in its service list (the SCM's root
   * CA), what a client trusts for the datanodes' TLS.
   */
  readonly caCertificatePath: string;
  /** The cluster's configuration as an `ozone-site.xml` for a client in another process. */
  readonly clientConfigPath: string;
  /** The Ozone keys the fixture set for security (see `secureOzoneConfiguration`); keytab paths included, no key material. */
  readonly configuration: Readonly<Record<string, string>>;
  /** JVM flags a Java client needs for the realm (`-Djava.security.krb5.conf=…`). */
  readonly javaOptions: readonly string[];
}

/** A key as the OM answers a client's lookup: the owner it recorded and every block's token, decoded. */
export interface JavaKeyInspection {
  /** The owner the OM recorded (the writer's short user name). */
  readonly owner: string;
  /** The user the inspecting Java client ran as, and how it authenticated (`KERBEROS`, `SIMPLE`). */
  readonly clientUser: string;
  readonly clientAuthMethod: string;
  readonly blocks: ReadonlyArray<{
    readonly containerId: bigint;
    readonly localId: bigint;
    /** The block token (`undefined` when the OM issued none: block tokens off). */
    readonly token: JavaBlockToken | undefined;
  }>;
}

/** A block token as the Java client decodes it (`OzoneBlockTokenIdentifier`); its password is never reported, only its length. */
export interface JavaBlockToken {
  /** `HDDS_BLOCK_TOKEN`. */
  readonly kind: string;
  /**
   * The token's service as the OM sent it: `conID: <containerId> locID: <localId>`, then NUL
   * characters (Ozone sends the whole backing array of the service's Hadoop `Text`).
   */
  readonly service: string;
  readonly ownerId: string;
  /** The block the identifier names, `conID: <containerId> locID: <localId>`. */
  readonly blockId: string;
  /** The token's end, ms since the epoch. */
  readonly expiryDateMs: number;
  readonly maxLengthBytes: number;
  /** The SCM secret key that signed it. */
  readonly secretKeyId: string | null;
  /** `READ`, `WRITE`, … */
  readonly modes: readonly string[];
  readonly passwordBytes: number;
}

/** An OM delegation token written to a Hadoop token storage file (`RealOzoneCluster.fetchDelegationToken`). */
export interface OzoneDelegationTokenFile {
  /** The file (`HDTS`, Writable format, alias = service): what `HADOOP_TOKEN_FILE_LOCATION` names. */
  readonly tokenFile: string;
  /** `OzoneToken`. */
  readonly kind: string;
  /** What the Java client set: the OM's `ip:port` (HA: every OM's, sorted, comma-joined). */
  readonly service: string;
  readonly owner: string;
  readonly renewer: string;
  readonly realUser: string;
  readonly issueDateMs: number;
  readonly maxDateMs: number;
  readonly sequenceNumber: number;
}

/** Credentials of {@link RealOzoneCluster.readKeyInJavaProcess}'s process: a token file only, or none (SIMPLE). */
export type JavaProcessCredentials = { tokenFile: string } | { simpleUser: string };

/** What a Java client process read, and who it was. */
export interface JavaProcessKeyRead extends JavaKeyRead {
  /** The process's Hadoop user and how it authenticated (`TOKEN` for a token-only login). */
  readonly user: string;
  readonly authMethod: string;
  readonly hasKerberosCredentials: boolean;
  /** Tokens the process's login user held. */
  readonly tokens: number;
}

/** A datanode of the real cluster, as the launcher reported it when the cluster was ready. */
export interface RealOzoneDatanode {
  readonly uuid: string;
  readonly hostName: string;
  readonly ipAddress: string;
  /** Ozone's port names (`STANDALONE`, `RATIS`, `RATIS_ADMIN`, `RATIS_SERVER`, `REPLICATION`, `CLIENT_RPC`, ...). */
  readonly ports: Readonly<Record<string, number>>;
  /** `host:port` of the standalone gRPC `XceiverClientProtocolService` (ReadChunk, GetBlock). */
  readonly standaloneAddress: string;
  readonly dataDirs: readonly string[];
  readonly metadataDir: string;
  readonly ratisDir: string;
}

/**
 * One datanode's own container-command counters (Ozone's `ContainerMetrics`, what its
 * `StorageContainerMetrics` bean shows): per command type with any activity, the operations and
 * the bytes. For ReadChunk the bytes are the lengths the clients asked for, so checksum-window
 * widening shows here as the datanode saw it. They start from 0 again when a datanode restarts.
 */
export interface RealDatanodeCounters {
  readonly uuid: string;
  /** By Ozone's command name (`ReadChunk`, `GetBlock`, `WriteChunk`, ...). */
  readonly commands: Readonly<Record<string, { readonly ops: number; readonly bytes: number }>>;
}

/**
 * Ozone's own S3 gateway (`org.apache.hadoop.ozone.s3.Gateway`) running in the cluster's JVM,
 * on loopback. Its S3 buckets are the buckets of the Ozone volume `volume`; a bucket of another
 * volume is reached through a link (`RealOzoneCluster.linkS3Bucket`).
 */
export interface RealS3Gateway {
  /** `http://127.0.0.1:<port>`: an S3 client's endpoint. */
  readonly endpoint: string;
  /** `127.0.0.1:<port>` of the gateway's S3 listener. */
  readonly httpAddress: string;
  /** The Ozone volume whose buckets S3 sees (`ozone.s3g.volume.name`, `s3v` by default). */
  readonly volume: string;
  /**
   * What an S3 client needs, as a fresh plain object each call (e.g.
   * `new S3Client(gateway.clientConfig())` with `@aws-sdk/client-s3`, which writes into the
   * credentials it is given): the endpoint, path-style addressing (the gateway's host is an IP
   * address), a region, and credentials. With security off the gateway takes the access key as
   * the user's name and checks no signature, so the secret is a placeholder.
   */
  clientConfig(): S3ClientConfig;
}

/** See {@link RealS3Gateway.clientConfig}. */
export interface S3ClientConfig {
  endpoint: string;
  region: string;
  forcePathStyle: true;
  credentials: { accessKeyId: string; secretAccessKey: string };
}

/** One OM of an HA cluster: its node id and addresses. */
export interface RealOzoneManager {
  /** `omNode-1`… as MiniOzoneHAClusterImpl names them. */
  readonly nodeId: string;
  /** `host:port` of its Hadoop RPC server. */
  readonly rpcAddress: string;
  /** `127.0.0.1:port` of its gRPC `OzoneManagerService`. */
  readonly grpcAddress: string;
}

/** How long `corruptBlockReplica` waits for a datanode to create a block's file it has not written yet. */
const REPLICA_CATCH_UP_MS = 60_000;

/** A running MiniOzoneCluster (SCM, OM and datanodes in one JVM). */
export interface RealOzoneCluster extends AsyncDisposable {
  /** With `omHa`: the OM service id (`ozone.om.service.ids`), else undefined. */
  readonly omServiceId: string | undefined;
  /** With `omHa`: every OM, in node order; else empty. */
  readonly oms: readonly RealOzoneManager[];
  /**
   * With `omHa`: what a client needs under Ozone's keys (`ozone.om.service.ids`,
   * `ozone.om.nodes.<id>`, `ozone.om.address.<id>.<node>` with the RPC address,
   * `ozone.om.grpc.port.<id>.<node>`); else empty.
   */
  readonly omClientProperties: Readonly<Record<string, string>>;
  /** With `omHa`: the node id of the OM that leads now (waits for one). */
  omLeader(): Promise<string>;
  /** With `omHa`: has the leader hand leadership to `nodeId`; resolves once it leads and is ready. */
  transferOmLeader(nodeId: string): Promise<void>;
  /** With `omHa`: stops one OM at once; resolves once its gRPC port refuses connections. */
  stopOm(nodeId: string): Promise<void>;
  /** With `omHa`: starts a stopped OM again (same ports and data); resolves once its gRPC port accepts. */
  restartOm(nodeId: string): Promise<void>;
  /** `127.0.0.1:port` of the OM's gRPC `OzoneManagerService` (what fastpath's client speaks). */
  readonly omGrpcAddress: string;
  readonly omGrpcPort: number;
  /** The OM's Hadoop RPC address (what Ozone's Java client uses). */
  readonly omRpcAddress: string;
  readonly scmClientAddress: string;
  readonly datanodes: readonly RealOzoneDatanode[];
  readonly ozoneVersion: string;
  readonly hadoopVersion: string;
  readonly clusterId: string;
  /** MiniOzoneCluster's own directory (OM and SCM metadata, every datanode's data). */
  readonly baseDir: string;
  /** The fixture's temporary directory (holds baseDir and the log); deleted by `stop()`. */
  readonly rootDir: string;
  /** SCM, OM and datanode logging of the JVM. */
  readonly logFile: string;
  readonly pid: number;
  /** Wall time from spawning the JVM to the ready line (jar preparation not included). */
  readonly startMs: number;
  /** The launcher's ready line, as printed. */
  readonly readyLine: string;
  /** Writes keys with Ozone's own Java client; resolves once every key is committed. */
  writeKeys(keys: readonly KeyToWrite[]): Promise<WrittenKey[]>;
  /**
   * Shuts one datanode down (MiniOzoneCluster#shutdownHddsDatanode); its files stay. Resolves once
   * its standalone gRPC port refuses connections.
   */
  stopDatanode(uuid: string): Promise<void>;
  /**
   * Starts a stopped datanode again on the same ports and directories; resolves once its
   * standalone gRPC port accepts connections.
   */
  restartDatanode(uuid: string): Promise<void>;
  /**
   * Flips one byte of one datanode's copy of a block on disk (FILE_PER_BLOCK layout: the file
   * `<localId>.block`), for checksum-failover tests; the datanode itself does not verify reads.
   * For an EC key the datanode's copy is one internal block (the replica index of its container;
   * see `lookupKey`'s `replicas`) and `offsetInBlock` an offset in that internal block. A datanode
   * without the block's file yet (a follower applies a write after a majority acknowledged it) is
   * waited for, up to a minute.
   */
  corruptBlockReplica(target: {
    datanodeUuid: string;
    localId: bigint;
    offsetInBlock: number;
  }): Promise<void>;
  /** Every datanode's container-command counters now, in `datanodes` order. */
  datanodeCounters(): Promise<RealDatanodeCounters[]>;
  /**
   * The counters of Ozone's Java client in the cluster's JVM (`writeKeys`, `readKeyWithJava` and
   * the other Java calls), e.g. how many EC block groups it read by reconstruction.
   */
  javaClientCounters(): Promise<JavaClientCounters>;
  /**
   * Looks a committed key up from the Java side (OzoneManager#lookupKey): whether it exists and,
   * if it does, its length, replication and blocks with the BCSIDs the OM recorded, each block's
   * pipeline members with their replica indexes, and what the running datanodes hold of it. Open
   * keys are not found.
   */
  lookupKey(volume: string, bucket: string, key: string): Promise<JavaKeyLookup>;
  /**
   * Reads a whole key with Ozone's own Java client, checksums verified (a fresh client each time,
   * `ozone.client.verify.checksum` on): what it read, as a byte count and SHA-256 (hex). A
   * checksum mismatch or any other read failure rejects with {@link OzoneKeyReadError}.
   */
  readKeyWithJava(volume: string, bucket: string, key: string): Promise<JavaKeyRead>;
  /** With `security`: what the fixture set up and what a client needs; else `undefined`. */
  readonly security: RealOzoneSecurity | undefined;
  /**
   * Looks a key up through Ozone's Java client (over the OM's Hadoop RPC, as the cluster's client
   * user): its owner and every block's token as the OM handed it out.
   *
   * @throws OzoneKeyReadError when the OM refuses the lookup
   */
  inspectKeyWithJava(volume: string, bucket: string, key: string): Promise<JavaKeyInspection>;
  /**
   * With `security`: has Ozone's Java client (as the client principal, Kerberos) fetch an OM
   * delegation token and write it to a Hadoop token storage file (`file`, default a new file under
   * `rootDir`), for a process that holds only that file (`HADOOP_TOKEN_FILE_LOCATION`).
   *
   * @throws OzoneFixtureStateError on a cluster without security, or when the OM issues none
   */
  fetchDelegationToken(options?: { renewer?: string; file?: string }): Promise<OzoneDelegationTokenFile>;
  /**
   * With `security`: reads a whole key with Ozone's Java client in a fresh JVM of its own, with
   * no Kerberos ticket, and either only a token file (`{ tokenFile }`, as
   * `HADOOP_TOKEN_FILE_LOCATION`) or no credentials and SIMPLE authentication
   * (`{ simpleUser }`, as `HADOOP_USER_NAME`).
   *
   * @throws OzoneKeyReadError with the Java exception chain when the cluster refuses it
   */
  readKeyInJavaProcess(
    volume: string,
    bucket: string,
    key: string,
    credentials: JavaProcessCredentials,
  ): Promise<JavaProcessKeyRead>;
  /** Lists a bucket's keys under `prefix` with Ozone's own Java client (`OzoneBucket#listKeys`): name and size each, in its order. */
  listKeysWithJava(
    volume: string,
    bucket: string,
    prefix?: string,
  ): Promise<Array<{ name: string; sizeBytes: number }>>;
  /**
   * Starts Ozone's S3 gateway in the cluster's JVM (every listener on a free loopback port),
   * unless it runs already; resolves once it serves. Stopped with the cluster.
   *
   * @throws OzoneS3GatewayError with the Java exception chain when it does not start
   */
  startS3Gateway(): Promise<RealS3Gateway>;
  /** The S3 gateway once started, else `undefined`. */
  readonly s3Gateway: RealS3Gateway | undefined;
  /**
   * Makes `volume/bucket` visible to S3 as the bucket `name`: an Ozone bucket link created in the
   * gateway's volume (the OM resolves it, so S3 reads the very keys, blocks and checksums of the
   * source bucket). Idempotent for the same source; the gateway must be running.
   */
  linkS3Bucket(link: { name: string; volume: string; bucket: string }): Promise<void>;
  /** Resident set size of the JVM now (from /proc), or `undefined` once it is gone. */
  rssBytes(): number | undefined;
  /** Stops the cluster cleanly (SIGKILL after `stopTimeoutMs`) and deletes `rootDir`. Idempotent. */
  stop(): Promise<void>;
  readonly stopped: boolean;
}

interface ReadyLine {
  ozoneVersion: string;
  hadoopVersion: string;
  clusterId: string;
  baseDir: string;
  omGrpcAddress: string;
  omRpcAddress: string;
  scmClientAddress: string;
  datanodes: Array<Omit<RealOzoneDatanode, 'standaloneAddress'>>;
  omServiceId?: string;
  oms?: RealOzoneManager[];
  security?: {
    clientConfigPath: string;
    caCertificatePath: string;
    caCertificates: number;
    clientUser: string;
    serviceUser: string;
  };
}

/** Keytabs and the configuration of a secure start, made before the JVM is spawned. */
interface SecureStart {
  readonly realm: string;
  readonly userKeytab: string;
  readonly configuration: Readonly<Record<string, string>>;
  readonly javaOptions: readonly string[];
  readonly tls: boolean;
}

/** A block as the launcher prints it: ids as decimal strings. */
interface RawBlock {
  containerId: string;
  localId: string;
  offset: number;
  offsetInKey: number;
  length: number;
}

interface Pending {
  resolve: (message: Record<string, unknown>) => void;
  reject: (err: Error) => void;
}

// The launcher needs reflective access Java 17 closes by default: Netty and Ratis reach into NIO
// buffers and sun.nio.ch, Hadoop's and Ozone's utilities into java.lang and java.util.
const JAVA_17_OPENS = [
  '--add-opens=java.base/java.lang=ALL-UNNAMED',
  '--add-opens=java.base/java.nio=ALL-UNNAMED',
  '--add-opens=java.base/sun.nio.ch=ALL-UNNAMED',
  '--add-opens=java.base/java.util=ALL-UNNAMED',
];

/**
 * Starts a real Apache Ozone MiniOzoneCluster from the Maven Central jars (resolved and compiled
 * on first use, see {@link prepareOzoneJars}) and resolves once every datanode is registered and a
 * pipeline is open. The OM gRPC server gets a free loopback port; the launcher prints every
 * address as one JSON line. The JVM never outlives this process (exit hook plus a watchdog).
 *
 * @example
 * ```ts
 * await using cluster = await startRealOzoneCluster({ datanodes: 3 });
 * const [key] = await cluster.writeKeys([{ volume: 'vol1', bucket: 'bucket1', key: 'k', size: 1024 }]);
 * // read it back over cluster.omGrpcAddress and cluster.datanodes[i].standaloneAddress
 * ```
 */
export async function startRealOzoneCluster(
  options: RealOzoneClusterOptions = {},
): Promise<RealOzoneCluster> {
  const resolved = resolveRealOzoneClusterOptions(options);
  const jars = await prepareOzoneJars(
    options.onProgress === undefined ? {} : { onProgress: options.onProgress },
  );
  let secure: SecureStart | undefined;
  if (resolved.security !== undefined) {
    const { kdc, tls } = resolved.security;
    const serviceKeytab = await kdc.keytab([kdc.principal(OZONE_SERVICE_PRINCIPAL)]);
    const userKeytab = await kdc.keytab([kdc.principal(OZONE_CLIENT_PRINCIPAL)]);
    secure = {
      realm: kdc.realm,
      userKeytab,
      configuration: secureOzoneConfiguration({ realm: kdc.realm, serviceKeytab, tls }),
      javaOptions: kdc.javaOptions(),
      tls,
    };
  }
  for (let attempt = 0; ; attempt++) {
    try {
      const cluster = await launchCluster(resolved, jars, secure);
      if (resolved.s3Gateway) {
        try {
          await cluster.startS3Gateway();
        } catch (err) {
          await cluster.stop();
          throw err;
        }
      }
      return cluster;
    } catch (err) {
      // MiniOzoneCluster's ports are checked only when picked: another process can take one first.
      const clash = err instanceof OzoneClusterExitedError && /Address already in use/.test(err.message);
      if (!clash || attempt >= resolved.portRetries) throw err;
    }
  }
}

async function launchCluster(
  resolved: ResolvedRealOzoneClusterOptions,
  jars: OzoneJars,
  secure: SecureStart | undefined,
): Promise<RealOzoneCluster> {
  const rootDir = await mkdtemp(join(tmpdir(), 'fastpath-ozone-'));
  const logFile = join(rootDir, 'cluster.log');
  // The security keys go first, so that the caller's `configuration` can still change one.
  const configuration = { ...(secure?.configuration ?? {}), ...resolved.configuration };
  let classpath = jars.classpath;
  const tlsJavaOptions: string[] = [];
  const siteKey = 'hdds.datanode.use.datanode.hostname';
  if (secure?.tls === true) {
    const siteDir = join(rootDir, 'site');
    await mkdir(siteDir);
    // Ozone's Ratis helper reads hdds.datanode.use.datanode.hostname from a configuration of its
    // own (a static OzoneConfiguration of the class path's ozone-site.xml), not from the cluster's:
    // an ozone-site.xml first on the class path carries it.
    if (configuration[siteKey] !== undefined) {
      await writeFile(
        join(siteDir, 'ozone-site.xml'),
        `<?xml version="1.0"?>\n<configuration>\n  <property><name>${siteKey}</name><value>${configuration[siteKey]}</value></property>\n</configuration>\n`,
      );
      classpath = `${siteDir}:${classpath}`;
    }
    // The datanodes' name for TLS: reversed from the host's non-loopback addresses (so their
    // certificates carry it), resolved to 127.0.0.1 first (so clients reach them on loopback).
    // localhost and this host's name keep resolving to 127.0.0.1. See OZONE_DATANODE_TLS_HOST.
    const lines = [`127.0.0.1 localhost ${hostname()}`, `127.0.0.1 ${OZONE_DATANODE_TLS_HOST}`];
    for (const addresses of Object.values(networkInterfaces())) {
      for (const a of addresses ?? [])
        if (!a.internal && a.family === 'IPv4') lines.push(`${a.address} ${OZONE_DATANODE_TLS_HOST}`);
    }
    const hostsFile = join(siteDir, 'hosts');
    await writeFile(hostsFile, `${lines.join('\n')}\n`);
    tlsJavaOptions.push(`-Djdk.net.hosts.file=${hostsFile}`);
  }
  const args = [
    `-Xmx${resolved.heapMb}m`,
    '-XX:+UseSerialGC',
    ...JAVA_17_OPENS,
    ...(secure?.javaOptions ?? []),
    ...tlsJavaOptions,
    `-Dlog4j.configuration=file:${jars.log4jConfig}`,
    '-cp',
    classpath,
    'fastpath.ozonefixture.OzoneClusterLauncher',
    '--base-dir',
    join(rootDir, 'data'),
    '--datanodes',
    String(resolved.datanodes),
    ...(resolved.omHa > 0 ? ['--om-ha', String(resolved.omHa), '--om-service-id', resolved.omServiceId] : []),
    ...(secure === undefined
      ? []
      : [
          '--secure',
          join(rootDir, 'client'),
          '--client-principal',
          `${OZONE_CLIENT_PRINCIPAL}@${secure.realm}`,
          '--client-keytab',
          secure.userKeytab,
        ]),
    ...Object.entries(configuration).flatMap(([key, value]) => ['--conf', `${key}=${value}`]),
  ];
  const logFd = openSync(logFile, 'a');
  let jvm: LauncherProcess;
  try {
    jvm = spawnLauncher(jars.javaPath, args, { cwd: rootDir, logFd, cleanupDir: rootDir });
  } finally {
    closeSync(logFd);
  }
  const spawnedAt = Date.now();

  const pending = new Map<number, Pending>();
  let waitingForReady: Pending | undefined;
  let nextId = 1;
  let holds = 0;
  const hold = (): (() => void) => {
    if (holds++ === 0) jvm.hold(true);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (--holds === 0) jvm.hold(false);
    };
  };

  createInterface({ input: jvm.stdout }).on('line', (line) => {
    let message: Record<string, unknown>;
    try {
      message = JSON.parse(line) as Record<string, unknown>;
    } catch {
      return; // the launcher prints only JSON; anything else is not an answer
    }
    if (message['event'] === 'ready' || message['event'] === 'failed') {
      const waiter = waitingForReady;
      waitingForReady = undefined;
      waiter?.resolve({ ...message, line });
      return;
    }
    const id = typeof message['id'] === 'number' ? message['id'] : -1;
    const request = pending.get(id);
    if (request === undefined) return;
    pending.delete(id);
    request.resolve(message);
  });
  void jvm.exited.then(async (exit) => {
    const tail = await logTail(logFile);
    const error = (what: string): OzoneClusterExitedError =>
      new OzoneClusterExitedError(
        `the Ozone cluster JVM exited (${exit.signal ?? `code ${String(exit.code)}`}) ${what}`,
        exit.code,
        exit.signal,
        tail,
      );
    waitingForReady?.reject(error('before it was ready'));
    waitingForReady = undefined;
    for (const request of pending.values()) request.reject(error('while a request was in flight'));
    pending.clear();
  });

  const bounded = <T>(promise: Promise<T>, timeoutMs: number, what: string): Promise<T> => {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        void logTail(logFile).then((tail) => reject(new OzoneClusterTimeoutError(what, timeoutMs, tail)));
      }, timeoutMs);
    });
    return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
  };

  let stopped = false;
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      stopped = true;
      const release = hold();
      try {
        if (jvm.exit() === undefined) {
          jvm.stdin.end(`${JSON.stringify({ id: nextId++, op: 'stop' })}\n`);
          let timer: NodeJS.Timeout | undefined;
          const timedOut = new Promise<'timeout'>((resolve) => {
            timer = setTimeout(() => resolve('timeout'), resolved.stopTimeoutMs);
          });
          const outcome = await Promise.race([jvm.exited, timedOut]);
          clearTimeout(timer);
          if (outcome === 'timeout') {
            jvm.signal('SIGKILL');
            await jvm.exited;
          }
        }
      } finally {
        release();
        await rm(rootDir, { recursive: true, force: true });
      }
    })();
    return stopping;
  };

  const releaseStart = hold();
  let ready: Record<string, unknown>;
  try {
    ready = await bounded(
      new Promise<Record<string, unknown>>((resolve, reject) => {
        waitingForReady = { resolve, reject };
      }),
      resolved.startTimeoutMs,
      'the MiniOzoneCluster to become ready',
    );
    if (ready['event'] === 'failed') {
      throw new OzoneClusterExitedError(
        `the Ozone cluster failed to start: ${String(ready['message'])}`,
        1,
        null,
        await logTail(logFile),
      );
    }
  } catch (err) {
    await stop();
    throw err;
  } finally {
    releaseStart();
  }
  const info = ready as unknown as ReadyLine & { line: string };
  const omGrpcPort = Number(info.omGrpcAddress.slice(info.omGrpcAddress.lastIndexOf(':') + 1));
  const datanodes: RealOzoneDatanode[] = info.datanodes.map((node) => ({
    ...node,
    standaloneAddress: `${node.ipAddress}:${node.ports['STANDALONE'] ?? -1}`,
  }));
  /** Sends one request and waits (bounded) for its answer; an "error" answer is returned as is. */
  const call = async (request: Record<string, unknown>, what: string): Promise<Record<string, unknown>> => {
    const id = nextId++;
    const release = hold();
    try {
      return await bounded(
        new Promise<Record<string, unknown>>((resolve, reject) => {
          pending.set(id, { resolve, reject });
          jvm.stdin.write(`${JSON.stringify({ id, ...request })}\n`);
        }),
        resolved.writeTimeoutMs,
        what,
      );
    } finally {
      pending.delete(id);
      release();
    }
  };
  const datanodeCall = async (op: 'stopDatanode' | 'restartDatanode', uuid: string): Promise<void> => {
    if (stopped) throw new OzoneFixtureStateError(`${op} after stop()`);
    if (!datanodes.some((d) => d.uuid === uuid)) throw new InvalidOptionError('uuid', `no datanode ${uuid}`);
    const answer = await call({ op, uuid }, `${op} ${uuid}`);
    if (answer['event'] !== 'done') throw new OzoneDatanodeControlError(op, uuid, String(answer['message']));
  };

  const defaultReplication = resolved.datanodes >= 3 ? 'RATIS/THREE' : 'RATIS/ONE';
  const oms = Object.freeze(
    (info.oms ?? [])
      .map((o) => Object.freeze({ ...o }))
      .sort((a, b) => a.nodeId.localeCompare(b.nodeId, 'en', { numeric: true })),
  );
  const omServiceId = info.omServiceId;
  const omClientProperties: Record<string, string> = {};
  if (omServiceId !== undefined) {
    omClientProperties['ozone.om.service.ids'] = omServiceId;
    omClientProperties[`ozone.om.nodes.${omServiceId}`] = oms.map((o) => o.nodeId).join(',');
    for (const o of oms) {
      omClientProperties[`ozone.om.address.${omServiceId}.${o.nodeId}`] = o.rpcAddress;
      omClientProperties[`ozone.om.grpc.port.${omServiceId}.${o.nodeId}`] = o.grpcAddress.slice(
        o.grpcAddress.lastIndexOf(':') + 1,
      );
    }
  }
  const omCall = async (op: string, nodeId?: string): Promise<Record<string, unknown>> => {
    if (stopped) throw new OzoneFixtureStateError(`${op} after stop()`);
    if (omServiceId === undefined)
      throw new OzoneFixtureStateError(`${op}: the cluster runs one OM (start it with omHa)`);
    if (nodeId !== undefined && !oms.some((o) => o.nodeId === nodeId))
      throw new InvalidOptionError('nodeId', `no OM ${nodeId} (${oms.map((o) => o.nodeId).join(', ')})`);
    const answer = await call({ op, ...(nodeId !== undefined ? { nodeId } : {}) }, `${op} ${nodeId ?? ''}`);
    if (answer['event'] === 'error') throw new OzoneOmControlError(op, nodeId, String(answer['message']));
    return answer;
  };
  let s3Gateway: RealS3Gateway | undefined;
  let security: RealOzoneSecurity | undefined;
  if (secure !== undefined) {
    if (info.security === undefined) {
      await stop();
      throw new OzoneClusterExitedError(
        'the secure cluster reported no client files',
        1,
        null,
        await logTail(logFile),
      );
    }
    const omPrincipal = configuration['ozone.om.kerberos.principal'] as string;
    security = Object.freeze({
      realm: secure.realm,
      servicePrincipal: `${OZONE_SERVICE_PRINCIPAL}@${secure.realm}`,
      omPrincipal,
      userPrincipal: info.security.clientUser,
      userKeytab: secure.userKeytab,
      userShortName: OZONE_CLIENT_PRINCIPAL,
      tls: secure.tls,
      rpcProtection: secure.tls ? 'privacy' : 'authentication',
      caCertificatePath: info.security.caCertificatePath,
      clientConfigPath: info.security.clientConfigPath,
      configuration: Object.freeze({ ...secure.configuration }),
      javaOptions: Object.freeze([...secure.javaOptions]),
    });
  }
  let tokenFiles = 0;

  return {
    security,
    async inspectKeyWithJava(volume, bucket, key) {
      if (stopped) throw new OzoneFixtureStateError('inspectKeyWithJava after stop()');
      const answer = await call(
        { op: 'inspectKey', volume, bucket, key },
        `Ozone's Java client to look up ${volume}/${bucket}/${key}`,
      );
      if (answer['event'] !== 'inspected')
        throw new OzoneKeyReadError(`${volume}/${bucket}/${key}`, String(answer['message']));
      const blocks = answer['blocks'] as Array<Record<string, unknown>>;
      return {
        owner: String(answer['owner']),
        clientUser: String(answer['clientUser']),
        clientAuthMethod: String(answer['clientAuthMethod']),
        blocks: blocks.map((b) => {
          const t = b['token'] as Record<string, unknown> | undefined;
          return {
            containerId: BigInt(b['containerId'] as string),
            localId: BigInt(b['localId'] as string),
            token:
              t === undefined
                ? undefined
                : {
                    kind: String(t['kind']),
                    service: String(t['service']),
                    ownerId: String(t['ownerId']),
                    blockId: String(t['blockId']),
                    expiryDateMs: Number(t['expiryDate']),
                    maxLengthBytes: Number(t['maxLength']),
                    secretKeyId: typeof t['secretKeyId'] === 'string' ? t['secretKeyId'] : null,
                    modes: (t['modes'] as string[]).slice(),
                    passwordBytes: Number(t['passwordBytes']),
                  },
          };
        }),
      };
    },
    async fetchDelegationToken(options = {}) {
      if (stopped) throw new OzoneFixtureStateError('fetchDelegationToken after stop()');
      if (security === undefined)
        throw new OzoneFixtureStateError('fetchDelegationToken: the cluster runs without security');
      const file = options.file ?? join(rootDir, 'tokens', `om-${++tokenFiles}.token`);
      const answer = await call(
        { op: 'getDelegationToken', renewer: options.renewer ?? '', file },
        'an OM delegation token',
      );
      if (answer['event'] !== 'token')
        throw new OzoneFixtureStateError(`the OM issued no delegation token: ${String(answer['message'])}`);
      return {
        tokenFile: String(answer['file']),
        kind: String(answer['kind']),
        service: String(answer['service']),
        owner: String(answer['owner']),
        renewer: String(answer['renewer']),
        realUser: String(answer['realUser']),
        issueDateMs: Number(answer['issueDate']),
        maxDateMs: Number(answer['maxDate']),
        sequenceNumber: Number(answer['sequenceNumber']),
      };
    },
    async readKeyInJavaProcess(volume, bucket, key, credentials) {
      if (stopped) throw new OzoneFixtureStateError('readKeyInJavaProcess after stop()');
      if (security === undefined)
        throw new OzoneFixtureStateError('readKeyInJavaProcess: the cluster runs without security');
      const token = 'tokenFile' in credentials;
      // Nothing of this process's own Kerberos or Hadoop identity reaches the child: no ticket
      // cache (a file that does not exist), no inherited token file, no inherited user name.
      const env: Record<string, string> = {};
      for (const [name, value] of Object.entries(process.env)) {
        if (value === undefined) continue;
        if (/^(KRB5CCNAME|HADOOP_TOKEN_FILE_LOCATION|HADOOP_TOKEN|HADOOP_USER_NAME)$/.test(name)) continue;
        env[name] = value;
      }
      env['KRB5CCNAME'] = `FILE:${join(rootDir, 'no-ticket-cache')}`;
      if (token) env['HADOOP_TOKEN_FILE_LOCATION'] = credentials.tokenFile;
      else env['HADOOP_USER_NAME'] = credentials.simpleUser;
      const result = await runProcess(
        jars.javaPath,
        [
          '-Xmx256m',
          '-XX:+UseSerialGC',
          ...JAVA_17_OPENS,
          ...security.javaOptions,
          ...tlsJavaOptions,
          `-Dlog4j.configuration=file:${jars.log4jConfig}`,
          '-cp',
          classpath,
          'fastpath.ozonefixture.ClientProcess',
          token ? 'token' : 'simple',
          security.clientConfigPath,
          volume,
          bucket,
          key,
        ],
        { cwd: rootDir, env, timeoutMs: resolved.writeTimeoutMs },
      );
      const line = result.stdout.trim().split('\n').pop() ?? '';
      let answer: Record<string, unknown>;
      try {
        answer = JSON.parse(line) as Record<string, unknown>;
      } catch {
        throw new OzoneKeyReadError(
          `${volume}/${bucket}/${key}`,
          `the Java client process printed no answer (exit ${String(result.code)}): ${result.stderr.trim().split('\n').slice(-5).join(' | ')}`,
        );
      }
      if (answer['event'] !== 'read')
        throw new OzoneKeyReadError(`${volume}/${bucket}/${key}`, String(answer['message']));
      return {
        bytesRead: Number(answer['bytesRead']),
        sha256: String(answer['sha256']),
        user: String(answer['user']),
        authMethod: String(answer['authMethod']),
        hasKerberosCredentials: answer['hasKerberosCredentials'] === true,
        tokens: Number(answer['tokens']),
      };
    },
    omServiceId,
    oms,
    omClientProperties: Object.freeze(omClientProperties),
    async omLeader() {
      return String((await omCall('omLeader'))['nodeId']);
    },
    async transferOmLeader(nodeId) {
      await omCall('transferOmLeader', nodeId);
    },
    async stopOm(nodeId) {
      await omCall('stopOm', nodeId);
    },
    async restartOm(nodeId) {
      await omCall('restartOm', nodeId);
    },
    omGrpcAddress: info.omGrpcAddress,
    omGrpcPort,
    omRpcAddress: info.omRpcAddress,
    scmClientAddress: info.scmClientAddress,
    datanodes,
    ozoneVersion: info.ozoneVersion,
    hadoopVersion: info.hadoopVersion,
    clusterId: info.clusterId,
    baseDir: info.baseDir,
    rootDir,
    logFile,
    pid: jvm.pid,
    startMs: Date.now() - spawnedAt,
    readyLine: info.line,
    get stopped() {
      return stopped;
    },
    get s3Gateway() {
      return s3Gateway;
    },
    async startS3Gateway() {
      if (stopped) throw new OzoneFixtureStateError('startS3Gateway after stop()');
      if (s3Gateway !== undefined) return s3Gateway;
      const answer = await call({ op: 'startS3Gateway' }, "Ozone's S3 gateway to start");
      if (answer['event'] !== 's3Gateway') throw new OzoneS3GatewayError(String(answer['message']));
      const endpoint = String(answer['endpoint']);
      s3Gateway = Object.freeze({
        endpoint,
        httpAddress: String(answer['httpAddress']),
        volume: String(answer['volume']),
        clientConfig: () => ({
          endpoint,
          region: 'us-east-1',
          forcePathStyle: true as const,
          credentials: { accessKeyId: 'fastpath', secretAccessKey: 'not-checked' },
        }),
      });
      return s3Gateway;
    },
    async linkS3Bucket(link) {
      if (stopped) throw new OzoneFixtureStateError('linkS3Bucket after stop()');
      // S3 bucket names follow the same rule as Ozone's here (lower case, 3-63, no '_').
      const name = checkOzoneName('name', link.name);
      const volume = checkOzoneName('volume', link.volume);
      const bucket = checkOzoneName('bucket', link.bucket);
      if (s3Gateway === undefined) throw new OzoneFixtureStateError('linkS3Bucket before startS3Gateway()');
      const answer = await call(
        { op: 'linkS3Bucket', name, volume, bucket },
        `a link ${s3Gateway.volume}/${name} to ${volume}/${bucket}`,
      );
      if (answer['event'] !== 'linked') throw new OzoneS3GatewayError(String(answer['message']));
    },
    async writeKeys(keys) {
      if (stopped) throw new OzoneFixtureStateError('writeKeys after stop()');
      const checked = checkKeysToWrite(keys, {
        defaultReplication,
        datanodes: resolved.datanodes,
        allowedReplicationConfigs: resolved.allowedReplicationConfigs,
      });
      if (checked.length === 0) return [];
      const answer = await call(
        { op: 'writeKeys', keys: checked },
        `Ozone's Java client to write ${checked.length} key(s)`,
      );
      if (answer['event'] !== 'written') throw new OzoneKeyWriteError(String(answer['message']));
      return (answer['keys'] as Array<Omit<WrittenKey, 'blocks'> & { blocks: RawBlock[] }>).map((key) => ({
        ...key,
        blocks: key.blocks.map((block) => ({
          ...block,
          containerId: BigInt(block.containerId),
          localId: BigInt(block.localId),
        })),
      }));
    },
    async stopDatanode(uuid) {
      await datanodeCall('stopDatanode', uuid);
    },
    async restartDatanode(uuid) {
      await datanodeCall('restartDatanode', uuid);
    },
    async lookupKey(volume, bucket, key) {
      if (stopped) throw new OzoneFixtureStateError('lookupKey after stop()');
      const answer = await call(
        { op: 'lookupKey', volume, bucket, key },
        `the OM's lookup of ${volume}/${bucket}/${key}`,
      );
      if (answer['event'] !== 'key') throw new OzoneFixtureStateError(String(answer['message']));
      if (answer['found'] !== true) return { found: false };
      const replication = String(answer['replication']);
      let offsetInKey = 0;
      return {
        found: true,
        dataSize: Number(answer['dataSize']),
        replication,
        // Replicated forms are TYPE/FACTOR; the EC form has no slash.
        ec: replication.includes('/') ? undefined : parseEcReplication(replication),
        metadata: { ...(answer['metadata'] as Record<string, string> | undefined) },
        blocks: (answer['blocks'] as Array<Record<string, unknown>>).map((b) => {
          const lengthBytes = Number(b['length']);
          offsetInKey += lengthBytes;
          return {
            containerId: BigInt(b['containerId'] as string),
            localId: BigInt(b['localId'] as string),
            blockCommitSequenceId: BigInt(b['blockCommitSequenceId'] as string),
            lengthBytes,
            offsetInKey: offsetInKey - lengthBytes,
            replicas: (b['replicas'] as JavaBlockReplica[]).map((r) => ({ ...r })),
            stored: (b['stored'] as JavaStoredReplica[]).map((r) => ({ ...r })),
          };
        }),
      };
    },
    async readKeyWithJava(volume, bucket, key) {
      if (stopped) throw new OzoneFixtureStateError('readKeyWithJava after stop()');
      const answer = await call(
        { op: 'readKey', volume, bucket, key },
        `Ozone's Java client to read ${volume}/${bucket}/${key}`,
      );
      if (answer['event'] !== 'read')
        throw new OzoneKeyReadError(`${volume}/${bucket}/${key}`, String(answer['message']));
      return {
        bytesRead: Number(answer['bytesRead']),
        sha256: String(answer['sha256']),
      };
    },
    async listKeysWithJava(volume, bucket, prefix = '') {
      if (stopped) throw new OzoneFixtureStateError('listKeysWithJava after stop()');
      const answer = await call(
        { op: 'listKeys', volume, bucket, prefix },
        `Ozone's Java client to list ${volume}/${bucket}/${prefix}`,
      );
      if (answer['event'] !== 'keys') throw new OzoneFixtureStateError(String(answer['message']));
      return (answer['keys'] as Array<{ name: string; size: number }>).map((k) => ({
        name: k.name,
        sizeBytes: Number(k.size),
      }));
    },
    async datanodeCounters() {
      if (stopped) throw new OzoneFixtureStateError('datanodeCounters after stop()');
      const answer = await call({ op: 'datanodeCounters' }, "the datanodes' counters");
      if (answer['event'] !== 'counters') throw new OzoneFixtureStateError(String(answer['message']));
      return answer['datanodes'] as RealDatanodeCounters[];
    },
    async javaClientCounters() {
      if (stopped) throw new OzoneFixtureStateError('javaClientCounters after stop()');
      const answer = await call({ op: 'clientCounters' }, "the Java client's counters");
      if (answer['event'] !== 'clientCounters') throw new OzoneFixtureStateError(String(answer['message']));
      return {
        ecReconstructionReads: Number(answer['ecReconstructionReads']),
        ecReconstructionFailures: Number(answer['ecReconstructionFailures']),
      };
    },
    async corruptBlockReplica(target) {
      if (stopped) throw new OzoneFixtureStateError('corruptBlockReplica after stop()');
      const datanode = datanodes.find((d) => d.uuid === target.datanodeUuid);
      if (datanode === undefined)
        throw new InvalidOptionError('datanodeUuid', `no datanode ${target.datanodeUuid}`);
      checkInteger('offsetInBlock', target.offsetInBlock, 0);
      // A write is acknowledged once a majority of its pipeline holds it: a follower (a datanode
      // just restarted, catching up on its Ratis log) may create the block's file a little later.
      // Wait for it, bounded; a file with data that ends before the byte is a wrong offset.
      const scan = async (): Promise<{ files: string[]; size: number }> => {
        const files = (
          await Promise.all(datanode.dataDirs.map((dir) => findBlockFiles(dir, target.localId)))
        ).flat();
        return { files, size: files.length === 1 ? (await stat(files[0] as string)).size : 0 };
      };
      const { files, size } =
        (await pollUntil(
          async () => {
            const seen = await scan();
            return seen.files.length > 1 || seen.size > 0 ? seen : undefined;
          },
          { timeoutMs: REPLICA_CATCH_UP_MS },
        )) ?? (await scan());
      const [path] = files;
      if (files.length !== 1 || path === undefined) {
        throw new OzoneFixtureStateError(
          `datanode ${datanode.uuid} holds ${files.length} files for block ${target.localId}, expected 1`,
        );
      }
      if (target.offsetInBlock >= size) {
        throw new InvalidOptionError(
          'offsetInBlock',
          `the replica has ${size} bytes, offset ${target.offsetInBlock}`,
        );
      }
      const file = await open(path, 'r+');
      try {
        const byte = Buffer.alloc(1);
        await file.read(byte, 0, 1, target.offsetInBlock);
        byte[0] = (byte[0] as number) ^ 0xff;
        await file.write(byte, 0, 1, target.offsetInBlock);
        await file.sync();
      } finally {
        await file.close();
      }
    },
    rssBytes() {
      if (jvm.exit() !== undefined) return undefined;
      try {
        const m = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${jvm.pid}/status`, 'utf8'));
        return m === null ? undefined : Number(m[1]) * 1024;
      } catch {
        return undefined;
      }
    },
    stop,
    [Symbol.asyncDispose]: stop,
  };
}

/** Every file named `<localId>.block` under `dir` (a datanode's FILE_PER_BLOCK chunk files). */
async function findBlockFiles(dir: string, localId: bigint): Promise<string[]> {
  const name = `${localId}.block`;
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile() && e.name === name).map((e) => join(e.parentPath, e.name));
}
