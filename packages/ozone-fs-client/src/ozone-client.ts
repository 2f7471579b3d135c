import { randomBytes } from 'node:crypto';
import { userInfo } from 'node:os';
import { startWarmup } from '@fastpath/client-warmup';
import { createHadoopRpcClient, type HadoopRpcClient } from '@fastpath/hadoop-rpc';
import { InvalidOptionError, MetricsRegistry, systemClock, type Clock } from '@fastpath/core';
import type { Token } from '@fastpath/hadoop-common';
import {
  OmStatusError,
  OzoneClosedError,
  OzoneInvalidArgumentError,
  OzoneProtocolError,
} from './ozone-errors.js';
import {
  DEFAULT_OZONE_CLIENT_CONFIG,
  loadOzoneSiteXml,
  ozoneClientConfigFromProperties,
  readProperty,
  type OzoneProperties,
  validateOzoneClientConfig,
  type OzoneClientConfig,
} from './ozone-client-config.js';
import { KeyInputStream, keyBlockLocations, type KeyBlockLocation } from './key-input-stream.js';
import { KeyOutputStream, type KeyWriteLayout } from './key-output-stream.js';
import type { ChecksumTypeName } from './internal/checksum.js';
import type { ClientContext } from './internal/client-context.js';
import type { ClientTlsOptions } from './internal/grpc/channel-options.js';
import { clientWarmupPlan } from './internal/client-warmup-plan.js';
import type { DatanodeStreamStats } from './internal/grpc/datanode-stream-pool.js';
import { GrpcOmTransport } from './internal/grpc/om-transport.js';
import { HadoopRpcOmTransport } from './internal/om/hadoop-rpc-om-transport.js';
import { OmClient } from './internal/om/om-client.js';
import {
  cancelOmDelegationToken,
  getOmDelegationToken,
  omTokenService,
  renewOmDelegationToken,
} from './internal/om/om-delegation-tokens.js';
import { DatanodeTrust, datanodeTlsEnabled, type OmCaCertificates } from './internal/grpc/datanode-trust.js';
import { omSaslSettings, type OzoneSecurityOptions, securityUserName } from './internal/om/om-sasl.js';
import { OmFailoverProxy, type OmLeader, type OmNode } from './internal/om/om-failover-proxy.js';
import { Http2OmTransport } from './internal/grpc/http2-om-transport.js';
import { ChunkBufferPool } from './internal/chunk-buffer-pool.js';
import { OmMetrics, type OmCallStats } from './internal/om/om-metrics.js';
import { ReadMetrics } from './internal/read-metrics.js';
import { resolveOmTarget } from './internal/om/om-service-config.js';
import { listFsoKeys } from './internal/fso-key-listing.js';
import { RaftClientPool, type WritePipeline } from './internal/ratis/raft-client-pool.js';
import { createReadContext, type ReadContextOptions } from './internal/read-context.js';
import { ReadWorkerPool, type ReadWorkerStats } from './internal/workers/read-worker-pool.js';
import {
  KeyEncryption,
  keyEncryptionDetails,
  type KeyEncryptionDetails,
} from './internal/crypto/key-encryption.js';
import type { KmsProviderOptions } from './internal/crypto/kms-key-provider.js';
import {
  decodeGetFileStatusResponse,
  fileStatusFields,
  type FileStatusFields,
} from './internal/proto/decode-file-status.js';
import { decodeListStatusLight, type LightStatus } from './internal/proto/decode-list-status-light.js';
import {
  checkReplicationAllowed,
  defaultReplicationConfigProto,
  parseReplication,
  replicationFromProto,
  replicationKeyArgs,
  replicationText,
  type KeyReplication,
} from './internal/replication.js';
import { has, hdds, om, toBigInt, toNumber, uint64, type hadoop } from './internal/proto/wire.js';

export type { ClientTlsOptions } from './internal/grpc/channel-options.js';
export type { OmLeader } from './internal/om/om-failover-proxy.js';
export type { OmCallStats } from './internal/om/om-metrics.js';
export type { KeyEncryptionDetails } from './internal/crypto/key-encryption.js';
export type { KmsProviderOptions } from './internal/crypto/kms-key-provider.js';

/**
 * Chunk buffers a client keeps for its next writes once their chunks are acknowledged: as many as
 * its writers have held at once, at least eight of Ozone's default 4 MiB chunks, at most 256 MiB
 * (sixteen writers of 16 MiB keys), and none once no write has taken one for 30 s.
 */
const CHUNK_BUFFERS_KEPT = { floorBytes: 32 << 20, ceilingBytes: 256 << 20, idleDropMs: 30_000 };
/**
 * How a bucket keeps its keys (`BucketLayoutProto`): `FILE_SYSTEM_OPTIMIZED` keeps real directories
 * (atomic rename and delete of a directory; what ofs/o3fs want), `OBJECT_STORE` flat keys (S3),
 * `LEGACY` the layout of buckets made before layouts existed.
 */
export type BucketLayout = 'FILE_SYSTEM_OPTIMIZED' | 'LEGACY' | 'OBJECT_STORE';
/** The storage medium a bucket asks for (`StorageTypeProto`); `DISK` unless chosen at create. */
export type StorageType = 'DISK' | 'SSD' | 'ARCHIVE' | 'RAM_DISK' | 'PROVIDED';

/** Options of {@link createOzoneClient}. */
export interface OzoneClientOptions {
  /**
   * The OM: `host:port` of one OM's gRPC service (`ozone.om.grpc.port`, 8981, when only a host is
   * given), or an OM service id listed in `ozone.om.service.ids` (OM HA: its nodes come from
   * `ozone.om.nodes.<id>` and `ozone.om.address.<id>.<node>`, and calls fail over between them).
   * Default: the one service id configured, else `ozone.om.address`.
   */
  omAddress?: string;
  /** The user the OM sees (`OMRequest.userInfo.userName`). Default: the OS user. */
  userName?: string;
  /** `ozone-site.xml` files, read with Hadoop's configuration reader in order (later wins). Default: none. */
  configFiles?: readonly string[];
  /** Properties under Ozone's keys, on top of `configFiles` (a Map, an object, a HadoopConfiguration). Default: none. */
  properties?: OzoneProperties;
  /** Settings that override `properties`. Default: none. */
  config?: Partial<OzoneClientConfig>;
  /**
   * TLS for the OM's gRPC channel and the datanode channels (gRPC and Ratis), trusting the CA of
   * `caFile` or `ca`. Without either, the datanode channels trust the CA certificates the OM hands
   * out in its service list, as Ozone's client does (the OM's gRPC port then cannot be used).
   * Datanode TLS is also on, without this option, where the cluster's settings say
   * `ozone.security.enabled` and `hdds.grpc.tls.enabled`. Default: plaintext.
   */
  tls?: ClientTlsOptions;
  /** Deadline of each OM call, in ms. Default: 30000. */
  omTimeoutMs?: number;
  /**
   * Longest wait between connection attempts to an OM that cannot be reached, in ms. gRPC's own
   * grows to 120 s while the OM is down, and calls made during the wait fail without trying, so
   * after an OM restart calls kept failing for as long again. Default: 1000.
   */
  omReconnectBackoffMs?: number;
  /** Largest gRPC message accepted, in bytes (a 4 MiB chunk needs more than grpc-js' 4 MiB default). Default: 32 MiB. */
  maxReceiveMessageBytes?: number;
  /** The clock of the short-circuit disable interval. Default: the system clock. */
  clock?: Clock;
  /**
   * Where the client's metrics go (`ozone_client_om_*`, `ozone_client_block_token_refreshes_total`,
   * and its pipelines' Ratis clients' `ratis_client_*`, labelled `ozone-pipeline-<id>`). Default: a
   * registry of its own (`client.metrics`).
   */
  metrics?: MetricsRegistry;
  /**
   * How the client authenticates to the KMS of encrypted keys (`hadoop.security.key.provider.path`),
   * and the KMS client's other options (`@fastpath/kms-client`): `user`, `delegationToken`,
   * `kerberos`, `doAs`, `ca`, timeouts. Default: simple authentication as `userName`.
   */
  kms?: KmsProviderOptions;
  /**
   * How the client logs in to the OM over Hadoop RPC on a secure cluster: Kerberos (from the
   * ticket cache or a keytab) and delegation tokens held (`credentials`). Default: Kerberos from
   * the ticket cache when `hadoop.security.authentication` is `kerberos`, no tokens; with neither,
   * SIMPLE authentication as `userName`. See docs/ozone.md, "Secure clusters".
   */
  security?: OzoneSecurityOptions;
}

/** The defaults of the {@link OzoneClientOptions} that are not Ozone settings. */
export const DEFAULT_OZONE_CLIENT_OPTIONS = Object.freeze({
  /** `omTimeoutMs`: the deadline of each OM call (also the connect timeout over Hadoop RPC), in ms. */
  omTimeoutMs: 30_000,
  /** `omReconnectBackoffMs`: the longest wait between gRPC connection attempts to an OM, in ms. */
  omReconnectBackoffMs: 1_000,
  /** `maxReceiveMessageBytes`: the largest OM or datanode message accepted, in bytes (32 MiB). */
  maxReceiveMessageBytes: 32 * 1024 * 1024,
});

/** A volume as the OM describes it (`InfoVolume`, `ListVolume`). */
export interface VolumeInfo {
  /** Volume name, as the OM stores it. */
  name: string;
  /** The user that owns the volume (`ownerName`); `createVolume` makes the client's user the owner unless told otherwise. */
  owner: string;
  /** The volume's admin user (`adminName`). */
  admin: string;
  /** When the volume was created, in ms since the epoch (the OM's clock). */
  creationTimeMs: number;
  /**
   * Space quota in bytes (`VolumeInfo.quotaInBytes`), as the OM reports it; a volume made without
   * one carries the OM's no-quota value (the mini cluster reports 0), not a limit.
   */
  quotaInBytes: number;
}

/** A bucket as the OM describes it (`InfoBucket`, `ListBuckets`). */
export interface BucketInfo {
  /** The volume the bucket is in. */
  volume: string;
  /** Bucket name, as the OM stores it (3-63 characters). */
  name: string;
  /** The bucket's layout; `LEGACY` when the OM reports none. */
  layout: BucketLayout;
  /** The storage type the bucket asks for; `DISK` when the OM reports one this client does not know. */
  storageType: StorageType;
  /** Whether the bucket keeps older versions of overwritten keys (`isVersionEnabled`). */
  versioning: boolean;
  /** When the bucket was created, in ms since the epoch (the OM's clock). */
  creationTimeMs: number;
  /** The KMS key of an encrypted bucket (`BucketInfo.beinfo`); undefined for a plain bucket. */
  encryptionKeyName: string | undefined;
  /**
   * The replication of keys that name none (`BucketInfo.defaultReplicationConfig`), in Ozone's text
   * (`THREE`, `rs-3-2-1024k`); undefined when the bucket has none (the OM's own default applies).
   */
  defaultReplication: string | undefined;
}

/**
 * A replication in Ozone's text: `ONE` or `THREE` (RATIS, also `1`, `3`), or an erasure-coding
 * config `<codec>-<data>-<parity>-<cell size>[k]` such as `rs-3-2-1024k`, `rs-6-3-1024k`,
 * `xor-2-1-1024k` (codec any case; a trailing k multiplies the cell size by 1024).
 */
export type ReplicationName = 'ONE' | 'THREE' | `${string}-${number}-${number}-${string}`;

/** A file or directory as the OM's file-system calls describe it. */
export interface OzoneFileStatus {
  /** The volume of the entry (as asked). */
  volume: string;
  /** The bucket of the entry (as asked). */
  bucket: string;
  /** The key's name without a trailing slash ('' for the bucket's root). */
  keyName: string;
  /** True for a directory (and the bucket's root); false for a file. */
  isDirectory: boolean;
  /** The file's length in bytes (`KeyInfo.dataSize`); 0 for a directory. */
  sizeBytes: number;
  /** The block size the OM reports for the entry (`OzoneFileStatusProto.blockSize`), in bytes. */
  blockSizeBytes: number;
  /** Last modification, in ms since the epoch (the OM's clock). */
  modificationTimeMs: number;
  /** The user that owns the key (`KeyInfo.ownerName`); '' when the OM names none. */
  owner: string;
  /** Replicas of each block: the key's replication factor, data + parity for an EC key; 0 for a directory. */
  replication: number;
}

/** A key as a listing shows it. */
export interface KeyListing {
  /** The volume the key is in. */
  volume: string;
  /** The bucket the key is in. */
  bucket: string;
  /** The key's full name within the bucket (`KeyInfo.keyName`), e.g. `dir/file` in a file-system bucket. */
  name: string;
  /** The key's length in bytes (`KeyInfo.dataSize`). */
  sizeBytes: number;
  /** When the key was created, in ms since the epoch (the OM's clock). */
  creationTimeMs: number;
  /** When the key was last committed or changed, in ms since the epoch (the OM's clock). */
  modificationTimeMs: number;
  /** The key's replication type as the OM names it (`RATIS`, `EC`, `STAND_ALONE`), or the number of one this client does not know. */
  replicationType: string;
}

/** A key with the blocks of its latest version, as a lookup answers it. */
export interface KeyDetails extends KeyListing {
  /** The blocks of the key's latest version, in key order; empty for an empty key. */
  blocks: readonly KeyBlockLocation[];
  /** The key's metadata as the OM keeps it; `hsyncClientId` while an hsync'ed key is still open. */
  metadata: Readonly<Record<string, string>>;
  /** The KMS key and key version of an encrypted key's data key; undefined for a plain key. */
  encryption: KeyEncryptionDetails | undefined;
}

/** Per-key write settings; each defaults to the client's configuration. */
export interface CreateKeyOptions {
  /**
   * Expected size in bytes (`KeyArgs.dataSize`); the OM preallocates blocks for it, and the stream
   * gathers a small key in a buffer of its size. Default: 0 (unknown).
   */
  sizeBytes?: number;
  /** Checksum of the key's data (`ozone.client.checksum.type`). Default: the client's, CRC32 unless configured. */
  checksumType?: ChecksumTypeName;
  /** Bytes covered by each checksum (`ozone.client.bytes.per.checksum`); below 8 KiB is raised to 8 KiB. Default: the client's, 16 KiB. */
  bytesPerChecksum?: number;
  /** Bytes per chunk, the unit of each datanode write (`ozone.client.stream.buffer.size`), at most 32 MiB. Default: the client's, 4 MiB. */
  chunkSizeBytes?: number;
  /** Bytes per block before the key moves on to a new block (`ozone.scm.block.size`), at least the chunk size. Default: the client's, 256 MiB. */
  blockSizeBytes?: number;
  /**
   * Replication asked of the OM: `ONE`/`THREE` (RATIS, `KeyArgs.factor`) or an EC config such as
   * `rs-3-2-1024k` (`KeyArgs.type` EC with its `ecReplicationConfig`), checked against
   * `ozone.replication.allowed-configs` before anything is sent. Default: the client's
   * `ozone.replication` (read as `ozone.replication.type` says) unless the bucket's default is EC;
   * without that setting none is asked, so the OM applies the bucket's default, else its own. The
   * stream writes what CreateKey answers: an EC key through the EC writer.
   */
  replication?: ReplicationName;
}

function checkName(what: string, value: string): void {
  if (typeof value !== 'string' || value.length === 0)
    throw new OzoneInvalidArgumentError(`${what} must be a non-empty string`);
}

const ms = (v: Long | number | null | undefined): number => toNumber(v);

/** `OMResponse.listStatusLightResponse`'s field number. */
const LIST_STATUS_LIGHT_RESPONSE = 129;
/** `OMResponse.getFileStatusResponse`'s field number. */
const GET_FILE_STATUS_RESPONSE = 70;

/** Buckets whose layout a client keeps for its listings. */
const BUCKET_LAYOUTS_KEPT = 1024;
type Long = hadoop.hdds.ContainerBlockID['containerID'];

/**
 * fastpath's Ozone client (the RpcClient/ObjectStore analogue): volumes, buckets and keys over
 * the OM's gRPC `submitRequest`, key data over the datanodes' gRPC `send` stream.
 *
 * @example
 * ```ts
 * const client = createOzoneClient({ omAddress: cluster.omAddress });
 * await client.createVolume('vol1');
 * await client.createBucket('vol1', 'bucket1');
 * await client.writeKey('vol1', 'bucket1', 'hello.txt', Buffer.from('hello'));
 * const data = await client.readKey('vol1', 'bucket1', 'hello.txt');
 * client.close();
 * ```
 */
export class OzoneClient {
  /**
   * The client's settings, frozen: the defaults, overlaid by `configFiles`, then `properties`,
   * then `config`, and validated (bytes per checksum raised to its minimum).
   */
  readonly config: Readonly<OzoneClientConfig>;
  /** The registry of the client's metrics (`ozone_client_om_*`, `ozone_client_block_token_refreshes_total`, `ratis_client_*` of its pipelines): the one given, else its own. */
  readonly metrics: MetricsRegistry;
  readonly #ctx: ClientContext;
  /** The `ozone_client_block_token_refreshes_total` series of this client. */
  readonly #readMetrics: ReadMetrics;
  /** What a read worker builds its read context from (the settings, TLS, the message bound). */
  readonly #readContextOptions: ReadContextOptions;
  /** The read worker threads, started by the first `openKey` when `ozone.client.read.worker.threads` > 0. */
  #readWorkers: ReadWorkerPool | undefined;
  /** The data keys of encrypted keys, through the KMS; untouched by plain keys. */
  readonly #encryption: KeyEncryption;
  /** TLS of the datanode and Ratis channels, and the CA they trust (asked of the OM when not given). */
  readonly #datanodeTrust: DatanodeTrust;
  /** The Hadoop RPC client of every OM node (one client id, one connection per OM); gRPC: none. */
  readonly #omRpc: HadoopRpcClient | undefined;
  /** How this client reaches the OM: `hadoop-rpc` or `grpc` (see `ozone.om.transport.class`). */
  readonly omTransport: 'grpc' | 'hadoop-rpc';
  #closed = false;
  /**
   * Each bucket's layout, as `listKeys` last learned it ("volume/bucket" → layout): a bucket's
   * layout never changes, so a caller paging a listing asks `InfoBucket` once, not per page (as
   * Ozone's Java client holds it in its `OzoneBucket`). Forgotten when this client deletes the
   * bucket or a listing finds it gone; bounded, oldest dropped first.
   */
  readonly #bucketLayouts = new Map<string, BucketLayout>();

  constructor(options: OzoneClientOptions) {
    if (
      options?.omAddress !== undefined &&
      (typeof options.omAddress !== 'string' || options.omAddress === '')
    )
      throw new InvalidOptionError(
        'omAddress',
        'expected host:port of the OM gRPC service or an OM service id',
      );
    const files = loadOzoneSiteXml(options.configFiles ?? []);
    const fromFiles = ozoneClientConfigFromProperties(files, DEFAULT_OZONE_CLIENT_CONFIG);
    const fromProperties = ozoneClientConfigFromProperties(options.properties ?? {}, fromFiles);
    this.config = Object.freeze(validateOzoneClientConfig({ ...fromProperties, ...options.config }));
    const omTimeoutMs = options.omTimeoutMs ?? DEFAULT_OZONE_CLIENT_OPTIONS.omTimeoutMs;
    const maxReceive = options.maxReceiveMessageBytes ?? DEFAULT_OZONE_CLIENT_OPTIONS.maxReceiveMessageBytes;
    if (!(omTimeoutMs > 0)) throw new InvalidOptionError('omTimeoutMs', 'must be positive');
    const omReconnectBackoffMs =
      options.omReconnectBackoffMs ?? DEFAULT_OZONE_CLIENT_OPTIONS.omReconnectBackoffMs;
    if (!Number.isInteger(omReconnectBackoffMs) || omReconnectBackoffMs < 1)
      throw new InvalidOptionError('omReconnectBackoffMs', 'must be a positive integer');
    if (!Number.isInteger(maxReceive) || maxReceive < this.config.chunkSizeBytes + 65536)
      throw new InvalidOptionError('maxReceiveMessageBytes', 'must exceed the chunk size');
    const lookup = (key: string): string | undefined =>
      (options.properties !== undefined ? readProperty(options.properties, key) : undefined) ??
      files.get(key);
    // ozone.om.transport.class, when set, decides how every address is read; unset, a host:port
    // omAddress stays the gRPC address it always was, and a service id or ozone.om.address is
    // reached over Hadoop RPC, Ozone's default. A secure client (Kerberos, tokens) reaches every
    // OM over Hadoop RPC, the only port where the OM speaks SASL: ofs://om:9862 as in Java.
    const sasl = omSaslSettings(options.security, lookup);
    const secure = sasl.authProtocol === 'sasl';
    const target = resolveOmTarget(
      options.omAddress,
      lookup,
      this.config.omGrpcPort,
      this.config.omTransport ?? (secure ? 'hadoop-rpc' : 'grpc'),
    );
    const transport = this.config.omTransport ?? (target.byAddress && !secure ? 'grpc' : 'hadoop-rpc');
    this.omTransport = transport;
    this.metrics = options.metrics ?? new MetricsRegistry();
    // One id for every OM node: over Hadoop RPC the OM's retry cache keys on it.
    const clientId = randomBytes(16);
    // A secure client is who it logs in as (Java's UGI short name), not the OS user.
    const userName = options.userName ?? securityUserName(options.security, lookup) ?? userInfo().username;
    if (transport !== 'hadoop-rpc' && secure) {
      throw new InvalidOptionError(
        'security',
        'Kerberos and delegation tokens reach the OM over Hadoop RPC only (ozone.om.transport.class); the OM gRPC port has no SASL',
      );
    }
    const rpc =
      transport === 'hadoop-rpc'
        ? createHadoopRpcClient({
            user: userName,
            authProtocol: sasl.authProtocol,
            ...(sasl.saslMechanisms === undefined ? {} : { saslMechanisms: sasl.saslMechanisms }),
            clientId,
            connectTimeoutMs: omTimeoutMs,
            callTimeoutMs: omTimeoutMs,
            maxResponseBytes: maxReceive,
            metrics: this.metrics,
            name: 'ozone-om',
          })
        : undefined;
    this.#omRpc = rpc;
    const nodes: OmNode[] = target.nodes.map((n) => {
      const host = n.host.includes(':') ? `[${n.host}]` : n.host;
      if (rpc) {
        const address = `${host}:${n.rpcPort}`;
        return {
          nodeId: n.nodeId,
          address,
          transport: new HadoopRpcOmTransport({ address, rpc, timeoutMs: omTimeoutMs }),
        };
      }
      const address = `${host}:${n.grpcPort}`;
      return {
        nodeId: n.nodeId,
        address,
        transport:
          this.config.omGrpcChannel !== 'grpc-js'
            ? new Http2OmTransport({
                address,
                timeoutMs: omTimeoutMs,
                maxMessageBytes: maxReceive,
                tls: options.tls,
                session: this.config.omGrpcChannel === 'socket' ? 'socket' : 'http2',
              })
            : new GrpcOmTransport({
                address,
                timeoutMs: omTimeoutMs,
                reconnectBackoffMs: omReconnectBackoffMs,
                maxMessageBytes: maxReceive,
                tls: options.tls,
              }),
      };
    });
    const omMetrics = new OmMetrics(
      this.metrics,
      clientId.toString('hex'),
      target.serviceId ?? (nodes[0] as OmNode).address,
    );
    const proxy = new OmFailoverProxy({
      clientId,
      serviceId: target.serviceId,
      nodes,
      // A single OM address has nothing to fail over to: its errors reach the caller at once.
      maxFailovers: target.serviceId === undefined ? 0 : this.config.omFailoverMaxAttempts,
      waitBetweenRetriesMs: this.config.omFailoverWaitMs,
      metrics: omMetrics,
    });
    const omClient = new OmClient(proxy, userName, omMetrics);
    this.#readMetrics = new ReadMetrics(this.metrics, clientId.toString('hex'));
    this.#datanodeTrust = new DatanodeTrust(
      datanodeTlsEnabled(options.tls, lookup),
      options.tls,
      () => this.#omCaCertificates(),
      proxy.serviceId ?? (nodes[0] as OmNode).address,
    );
    const datanodeTls = this.#datanodeTrust.options;
    this.#readContextOptions = { config: this.config, tls: datanodeTls, maxReceiveBytes: maxReceive };
    const read = createReadContext(this.#readContextOptions, options.clock ?? systemClock);
    const { datanodes } = read;
    this.#ctx = {
      ...read,
      om: omClient,
      raft: new RaftClientPool(this.config, datanodeTls, this.metrics),
      chunkBuffers: new ChunkBufferPool(CHUNK_BUFFERS_KEPT),
    };
    this.#encryption = new KeyEncryption(this.config.keyProviderPath, {
      user: omClient.userName,
      ...options.kms,
    });
    // Once per process, and never in the caller's way: see @fastpath/client-warmup.
    if (this.config.warmupEnabled)
      startWarmup(clientWarmupPlan({ config: this.config, tls: datanodeTls, datanodes }));
  }

  /**
   * Gets a delegation token from the OM (OM `GetDelegationToken`), for a process that will hold
   * only the token (a YARN or Spark task): kind `OzoneToken`, its service the `ip:port` of every OM
   * of the service sorted and joined with `,` as Ozone's Java client sets it, so either client can
   * use it. Needs a Kerberos log-in (the OM gives no token to a token); `renewer` is the short name
   * of who may renew it (default `''`: nobody). Resolves `undefined` when the OM runs no secret
   * manager (security off).
   *
   * @throws OmStatusError `ERR_OZONE_INVALID_AUTH_METHOD` over a connection not authenticated by Kerberos
   */
  async getDelegationToken(renewer = ''): Promise<Token | undefined> {
    if (this.#closed) throw new OzoneClosedError('the Ozone client');
    const service = await omTokenService(this.#ctx.om.proxy.nodes.map((n) => n.address));
    return getOmDelegationToken(this.#ctx.om, renewer, service);
  }

  /**
   * Renews an OM delegation token (OM `RenewDelegationToken`) as its renewer, over Kerberos;
   * resolves with its new expiry time in ms since the epoch (never past its maximum date).
   */
  async renewDelegationToken(token: Token): Promise<number> {
    if (this.#closed) throw new OzoneClosedError('the Ozone client');
    return renewOmDelegationToken(this.#ctx.om, token);
  }

  /** Cancels an OM delegation token (OM `CancelDelegationToken`), as its owner or renewer. */
  async cancelDelegationToken(token: Token): Promise<void> {
    if (this.#closed) throw new OzoneClosedError('the Ozone client');
    await cancelOmDelegationToken(this.#ctx.om, token);
  }

  /** The user this client names in every OMRequest. */
  get userName(): string {
    return this.#ctx.om.userName;
  }

  /** The `clientId` this client puts in every OMRequest (its 16-byte id as a UUID). */
  get clientId(): string {
    return this.#ctx.om.clientId;
  }

  /** The OM service id this client fails over within; undefined for a single OM address. */
  get omServiceId(): string | undefined {
    return this.#ctx.om.proxy.serviceId;
  }

  /** The OM nodes this client knows, in the order it rotates through them. */
  get omNodes(): ReadonlyArray<{
    /** The node id (`ozone.om.nodes.<serviceId>`; `om1` for a single OM). */
    nodeId: string;
    /** The `host:port` calls to this node go to, on the transport in use. */
    address: string;
  }> {
    return this.#ctx.om.proxy.nodes.map((n) => ({ nodeId: n.nodeId, address: n.address }));
  }

  /**
   * The OM node calls go to first: the one that last answered, or that an OM named as its leader.
   * Undefined before the first answer, and while a failover has not found the leader yet.
   */
  get omLeader(): OmLeader | undefined {
    return this.#ctx.om.proxy.leader;
  }

  /** What this client's OM calls did: attempts, failovers by why, leader changes, waits (as in `metrics`). */
  get omStats(): OmCallStats {
    return structuredClone(this.#ctx.om.metrics.stats);
  }

  /**
   * What the datanode channels' stream pools did (`ozone.client.datanode.transport=stream-pool`):
   * streams opened, open now, half-closed when idle, failed; requests sent again after a stream
   * failed and requests past their deadline. All zero with `call-per-request`.
   */
  get datanodeStreamStats(): DatanodeStreamStats {
    return this.#ctx.datanodes.streamStats();
  }

  /**
   * Who does this client's byte work (`ozone.client.bulk.engine`): `native` (ISA-L's CRCs, large
   * copies on libuv's thread pool) or `js`.
   */
  get bulkEngine(): 'native' | 'js' {
    return this.#ctx.bulk.name;
  }

  /**
   * The RATIS pipelines this client has written to, each with its members and the member its
   * Raft client sends writes to now: the leader as the client last learned it. Where a write goes,
   * for operators and for tests that stop a pipeline's leader.
   */
  get writePipelines(): WritePipeline[] {
    return this.#ctx.raft.pipelines();
  }

  /**
   * What the read worker threads did (`ozone.client.read.worker.threads` > 0): started, running,
   * crashed, reads sent again after their worker ended, reads on the workers now. All zero
   * without workers, and until the first `openKey` starts them.
   */
  get readWorkerStats(): ReadWorkerStats {
    return {
      ...(this.#readWorkers?.stats ?? { started: 0, running: 0, crashed: 0, reissued: 0, inFlight: 0 }),
    };
  }

  #submit(...args: Parameters<OmClient['submit']>): Promise<hadoop.ozone.OMResponse> {
    if (this.#closed) return Promise.reject(new OzoneClosedError('the Ozone client'));
    return this.#ctx.om.submit(...args);
  }

  /** The SCM's CA certificates, from the OM's service list (`ServiceList`), as Ozone's client gets them. */
  async #omCaCertificates(): Promise<OmCaCertificates> {
    const r = await this.#submit('ServiceList', { serviceListRequest: {} });
    const list = r.ServiceListResponse;
    return { caCerts: list?.caCerts ?? [], caCertificate: list?.caCertificate ?? undefined };
  }

  #submitTaking(...args: Parameters<OmClient['submitTaking']>): ReturnType<OmClient['submitTaking']> {
    if (this.#closed) return Promise.reject(new OzoneClosedError('the Ozone client'));
    return this.#ctx.om.submitTaking(...args);
  }

  get #user(): string {
    return this.#ctx.om.userName;
  }

  /**
   * Creates a volume (OM `CreateVolume`). Owner and admin default to this client's user; the OM
   * answers `ERR_OZONE_VOLUME_ALREADY_EXISTS` for a name that is taken, so a second call fails.
   */
  async createVolume(
    name: string,
    options: { owner?: string; admin?: string; quotaInBytes?: number } = {},
  ): Promise<void> {
    checkName('volume', name);
    await this.#submit('CreateVolume', {
      createVolumeRequest: {
        volumeInfo: {
          volume: name,
          ownerName: options.owner ?? this.#user,
          adminName: options.admin ?? this.#user,
          ...(options.quotaInBytes !== undefined ? { quotaInBytes: uint64(options.quotaInBytes) } : {}),
        },
      },
    });
  }

  /** A volume's details (OM `InfoVolume`); `ERR_OZONE_VOLUME_NOT_FOUND` when there is none. */
  async getVolume(name: string): Promise<VolumeInfo> {
    checkName('volume', name);
    const r = await this.#submit('InfoVolume', { infoVolumeRequest: { volumeName: name } });
    const v = r.infoVolumeResponse?.volumeInfo;
    if (!v) throw new OzoneProtocolError(this.#ctx.om.address, 'InfoVolume answered without volumeInfo');
    return volumeInfo(v);
  }

  /**
   * One page of volumes, sorted by name (OM `ListVolume`): the user's own volumes, or every
   * volume with `allUsers`. `startAfter` is exclusive; `maxKeys` is the page size (default 1000).
   */
  async listVolumes(
    options: { prefix?: string; startAfter?: string; maxKeys?: number; allUsers?: boolean } = {},
  ): Promise<VolumeInfo[]> {
    const r = await this.#submit('ListVolume', {
      listVolumeRequest: {
        scope: options.allUsers
          ? om.ListVolumeRequest.Scope.VOLUMES_BY_CLUSTER
          : om.ListVolumeRequest.Scope.VOLUMES_BY_USER,
        userName: this.#user,
        ...(options.prefix !== undefined ? { prefix: options.prefix } : {}),
        ...(options.startAfter !== undefined ? { prevKey: options.startAfter } : {}),
        maxKeys: options.maxKeys ?? 1000,
      },
    });
    return (r.listVolumeResponse?.volumeInfo ?? []).map(volumeInfo);
  }

  /** Deletes an empty volume (OM `DeleteVolume`); `ERR_OZONE_VOLUME_NOT_EMPTY` while it has buckets. */
  async deleteVolume(name: string): Promise<void> {
    checkName('volume', name);
    await this.#submit('DeleteVolume', { deleteVolumeRequest: { volumeName: name } });
  }

  /**
   * Creates a bucket (OM `CreateBucket`) owned by this client's user. Defaults: layout
   * `FILE_SYSTEM_OPTIMIZED`, storage `DISK`, no versioning, not encrypted. An unknown layout is an
   * `ERR_OZONE_INVALID_ARGUMENT` before any call; a taken name is `ERR_OZONE_BUCKET_ALREADY_EXISTS`.
   */
  async createBucket(
    volume: string,
    bucket: string,
    options: {
      layout?: BucketLayout;
      storageType?: StorageType;
      versioning?: boolean;
      /** The KMS key of an encrypted bucket (Ozone's `--bucketkey`); the OM checks it with its KMS. */
      encryptionKey?: string;
      /**
       * The replication of keys that name none (Ozone's `--type`/`--replication`): `THREE`, `ONE`
       * or an EC config such as `rs-3-2-1024k`, checked against `ozone.replication.allowed-configs`
       * before the call (the OM checks its own). Default: none (the OM's default applies).
       */
      defaultReplication?: ReplicationName;
    } = {},
  ): Promise<void> {
    checkName('volume', volume);
    checkName('bucket', bucket);
    const layout = options.layout ?? 'FILE_SYSTEM_OPTIMIZED';
    if (!(layout in om.BucketLayoutProto))
      throw new OzoneInvalidArgumentError(`unknown bucket layout ${String(layout)}`);
    if (options.encryptionKey !== undefined) checkName('encryptionKey', options.encryptionKey);
    const defaultReplication =
      options.defaultReplication === undefined
        ? undefined
        : this.#checkedReplication(options.defaultReplication);
    await this.#submit('CreateBucket', {
      createBucketRequest: {
        bucketInfo: {
          volumeName: volume,
          bucketName: bucket,
          isVersionEnabled: options.versioning ?? false,
          storageType: hdds.StorageTypeProto[options.storageType ?? 'DISK'],
          bucketLayout: om.BucketLayoutProto[layout],
          owner: this.#user,
          ...(options.encryptionKey !== undefined ? { beinfo: { keyName: options.encryptionKey } } : {}),
          ...(defaultReplication
            ? { defaultReplicationConfig: defaultReplicationConfigProto(defaultReplication) }
            : {}),
        },
      },
    });
  }

  /** A bucket's details (OM `InfoBucket`); `ERR_OZONE_BUCKET_NOT_FOUND` (or the volume's) when there is none. */
  async getBucket(volume: string, bucket: string): Promise<BucketInfo> {
    return bucketInfo(await this.#infoBucket(volume, bucket));
  }

  async #infoBucket(volume: string, bucket: string): Promise<hadoop.ozone.IBucketInfo> {
    checkName('volume', volume);
    checkName('bucket', bucket);
    const r = await this.#submit('InfoBucket', {
      infoBucketRequest: { volumeName: volume, bucketName: bucket },
    });
    const b = r.infoBucketResponse?.bucketInfo;
    if (!b) throw new OzoneProtocolError(this.#ctx.om.address, 'InfoBucket answered without bucketInfo');
    return b;
  }

  /**
   * One page of a volume's buckets, sorted by name (OM `ListBuckets`). `startAfter` is exclusive;
   * `count` is the page size (default 1000).
   */
  async listBuckets(
    volume: string,
    options: { prefix?: string; startAfter?: string; count?: number } = {},
  ): Promise<BucketInfo[]> {
    checkName('volume', volume);
    const r = await this.#submit('ListBuckets', {
      listBucketsRequest: {
        volumeName: volume,
        ...(options.startAfter !== undefined ? { startKey: options.startAfter } : {}),
        ...(options.prefix !== undefined ? { prefix: options.prefix } : {}),
        count: options.count ?? 1000,
      },
    });
    return (r.listBucketsResponse?.bucketInfo ?? []).map(bucketInfo);
  }

  /** Deletes an empty bucket (OM `DeleteBucket`); `ERR_OZONE_BUCKET_NOT_EMPTY` while it has keys. */
  async deleteBucket(volume: string, bucket: string): Promise<void> {
    checkName('volume', volume);
    checkName('bucket', bucket);
    this.#bucketLayouts.delete(`${volume}/${bucket}`);
    await this.#submit('DeleteBucket', { deleteBucketRequest: { volumeName: volume, bucketName: bucket } });
  }

  /** Opens a key for writing (CreateKey); write to the stream and `close()` it to commit. */
  async createKey(
    volume: string,
    bucket: string,
    key: string,
    options: CreateKeyOptions = {},
  ): Promise<KeyOutputStream> {
    checkName('volume', volume);
    checkName('bucket', bucket);
    checkName('key', key);
    const sizeBytes = options.sizeBytes ?? 0;
    if (!Number.isSafeInteger(sizeBytes) || sizeBytes < 0)
      throw new OzoneInvalidArgumentError('sizeBytes must be a non-negative integer');
    const asked =
      options.replication === undefined ? undefined : this.#checkedReplication(options.replication);
    const layout = this.#layout(options, asked);
    const replication = await this.#keyReplication(volume, bucket, asked);
    const r = await this.#submit('CreateKey', {
      createKeyRequest: { keyArgs: this.#writeKeyArgs(volume, bucket, key, sizeBytes, replication) },
    });
    const body = r.createKeyResponse;
    if (!body || !has(body, 'ID'))
      throw new OzoneProtocolError(this.#ctx.om.address, 'CreateKey answered without an open-key ID');
    return this.#outputStream(volume, bucket, key, body, layout, options, replication);
  }

  /**
   * Opens a file for writing with the file-system rules (OM `CreateFile`): `overwrite` replaces
   * an existing file, `recursive` creates missing parent directories. Close the stream to commit.
   */
  async createFile(
    volume: string,
    bucket: string,
    key: string,
    options: CreateKeyOptions & { overwrite?: boolean; recursive?: boolean } = {},
  ): Promise<KeyOutputStream> {
    checkName('volume', volume);
    checkName('bucket', bucket);
    checkName('key', key);
    const sizeBytes = options.sizeBytes ?? 0;
    if (!Number.isSafeInteger(sizeBytes) || sizeBytes < 0)
      throw new OzoneInvalidArgumentError('sizeBytes must be a non-negative integer');
    const asked =
      options.replication === undefined ? undefined : this.#checkedReplication(options.replication);
    const layout = this.#layout(options, asked);
    const replication = await this.#keyReplication(volume, bucket, asked);
    const r = await this.#submit('CreateFile', {
      createFileRequest: {
        keyArgs: this.#writeKeyArgs(volume, bucket, key, sizeBytes, replication),
        isRecursive: options.recursive ?? false,
        isOverwrite: options.overwrite ?? false,
      },
    });
    const body = r.createFileResponse;
    if (!body || !has(body, 'ID'))
      throw new OzoneProtocolError(this.#ctx.om.address, 'CreateFile answered without an open-key ID');
    return this.#outputStream(volume, bucket, key, body, layout, options, replication);
  }

  /** Creates a directory and its missing parents (OM `CreateDirectory`); true when it already was one. */
  async createDirectory(
    volume: string,
    bucket: string,
    key: string,
  ): Promise<{
    /** True when the directory was there already (the OM answered `DIRECTORY_ALREADY_EXISTS`); nothing changed then. */
    existed: boolean;
  }> {
    checkName('volume', volume);
    checkName('bucket', bucket);
    checkName('key', key);
    try {
      await this.#submit('CreateDirectory', {
        createDirectoryRequest: {
          keyArgs: { volumeName: volume, bucketName: bucket, keyName: key, ownerName: this.#user },
        },
      });
      return { existed: false };
    } catch (err) {
      if (err instanceof OmStatusError && err.status === 'DIRECTORY_ALREADY_EXISTS') return { existed: true };
      throw err;
    }
  }

  /** The status of a file or directory (OM `GetFileStatus`); `key` '' is the bucket's root. */
  async getFileStatus(volume: string, bucket: string, key: string): Promise<OzoneFileStatus> {
    checkName('volume', volume);
    checkName('bucket', bucket);
    return fileStatus(volume, bucket, await this.#getFileStatusFields(volume, bucket, key));
  }

  /** GetFileStatus's answer, hand-decoded (the call a file system makes most). */
  async #getFileStatusFields(volume: string, bucket: string, key: string): Promise<FileStatusFields> {
    const { taken, address } = await this.#submitTaking(
      'GetFileStatus',
      { getFileStatusRequest: { keyArgs: { volumeName: volume, bucketName: bucket, keyName: key } } },
      GET_FILE_STATUS_RESPONSE,
    );
    if (!taken) throw new OzoneProtocolError(address, 'GetFileStatus answered without a status');
    return decodeGetFileStatusResponse(taken, address);
  }

  /**
   * One page of a directory's entries (OM `ListStatus`), sorted by name; `startKey` (a full key
   * name) is inclusive, as Ozone has it. A file lists as itself.
   */
  async listStatus(
    volume: string,
    bucket: string,
    key: string,
    options: { startKey?: string; numEntries?: number; recursive?: boolean } = {},
  ): Promise<OzoneFileStatus[]> {
    checkName('volume', volume);
    checkName('bucket', bucket);
    const numEntries = options.numEntries ?? 1024;
    if (!Number.isSafeInteger(numEntries) || numEntries < 1)
      throw new OzoneInvalidArgumentError('numEntries must be a positive integer');
    const r = await this.#submit('ListStatus', {
      listStatusRequest: {
        keyArgs: { volumeName: volume, bucketName: bucket, keyName: key },
        recursive: options.recursive ?? false,
        startKey: options.startKey ?? '',
        numEntries: uint64(numEntries),
      },
    });
    return (r.listStatusResponse?.statuses ?? []).map((s) => fileStatus(volume, bucket, fileStatusFields(s)));
  }

  /**
   * The key's write layout, checked. An EC key's chunks are its cells: its block size is held
   * against the cell when that is smaller than the replicated chunk size (never more strictly
   * than a replicated key's).
   */
  #layout(options: CreateKeyOptions, asked: KeyReplication | undefined): KeyWriteLayout {
    const cell = asked?.type === 'EC' ? asked.config.ecChunkSize : undefined;
    // A key with the client's own layout (most keys) takes the config checked when the client
    // was made: checking a copy of it again cost each small key's create more than its encoding.
    if (
      cell === undefined &&
      options.checksumType === undefined &&
      options.bytesPerChecksum === undefined &&
      options.chunkSizeBytes === undefined &&
      options.blockSizeBytes === undefined
    )
      return this.config;
    return validateOzoneClientConfig({
      ...this.config,
      ...(cell !== undefined ? { chunkSizeBytes: Math.min(cell, this.config.chunkSizeBytes) } : {}),
      ...(options.checksumType !== undefined ? { checksumType: options.checksumType } : {}),
      ...(options.bytesPerChecksum !== undefined ? { bytesPerChecksum: options.bytesPerChecksum } : {}),
      ...(options.chunkSizeBytes !== undefined ? { chunkSizeBytes: options.chunkSizeBytes } : {}),
      ...(options.blockSizeBytes !== undefined ? { blockSizeBytes: options.blockSizeBytes } : {}),
    });
  }

  /** A replication named by a caller, parsed and checked against `ozone.replication.allowed-configs`. */
  #checkedReplication(name: string): KeyReplication {
    if (typeof name !== 'string')
      throw new OzoneInvalidArgumentError(
        'replication must be ONE, THREE or an EC config such as rs-3-2-1024k',
      );
    return checkReplicationAllowed(parseReplication(name), this.config.replicationAllowedConfigs);
  }

  /**
   * The replication CreateKey asks for, as Ozone's client decides it. Ozone's object-store calls
   * (RpcClient#createKey) send the key's own or none; its file systems
   * (OzoneClientUtils#resolveClientSideReplicationConfig) fall back to the client's
   * `ozone.replication` (read with `ozone.replication.type`, default RATIS, and only when
   * `ozone.replication` is set: getClientConfiguredReplicationConfig), except in a bucket whose
   * default is EC, which keeps it. Both are served here: the key's own, else the client's setting
   * unless the bucket's default is EC (one InfoBucket, only when the setting is there), else none,
   * and the OM applies the bucket's default, else its own (OzoneConfigUtil).
   */
  async #keyReplication(
    volume: string,
    bucket: string,
    asked: KeyReplication | undefined,
  ): Promise<KeyReplication | undefined> {
    if (asked) return asked;
    const configured = this.config.replication;
    if (configured === undefined) return undefined;
    const { defaultReplicationConfig } = await this.#infoBucket(volume, bucket);
    if (defaultReplicationConfig?.type === hdds.ReplicationType.EC) return undefined;
    return parseReplication(configured, this.config.replicationType);
  }

  #writeKeyArgs(
    volume: string,
    bucket: string,
    key: string,
    sizeBytes: number,
    replication: KeyReplication | undefined,
  ): hadoop.ozone.IKeyArgs {
    return {
      volumeName: volume,
      bucketName: bucket,
      keyName: key,
      ...(sizeBytes > 0 ? { dataSize: uint64(sizeBytes) } : {}),
      // Without one, the OM takes the bucket's default replication, else its own.
      ...(replication ? replicationKeyArgs(replication) : {}),
      isMultipartKey: false,
      sortDatanodes: false,
      ownerName: this.#user,
    };
  }

  async #outputStream(
    volume: string,
    bucket: string,
    key: string,
    body: { ID?: Long | null; keyInfo?: hadoop.ozone.IKeyInfo | null },
    layout: KeyWriteLayout,
    options: CreateKeyOptions,
    asked: KeyReplication | undefined,
  ): Promise<KeyOutputStream> {
    // Before the first byte: a key whose data key the KMS does not give is never written, and the
    // datanodes' CA is known (asked of the OM once, when the datanodes use TLS and none was given).
    await this.#datanodeTrust.ready();
    const encryptor = await this.#encryption.encryptorFor(body.keyInfo);
    const versions = body.keyInfo?.keyLocationList ?? [];
    const preallocated = [...(versions[versions.length - 1]?.keyLocations ?? [])];
    // What the OM chose (the key's own, the bucket's default or the OM's): Ozone's RpcClient picks
    // the key's stream by the replication of the KeyInfo CreateKey answered.
    const info = body.keyInfo;
    const answered = replicationFromProto(info?.type, info?.factor, info?.ecReplicationConfig);
    const replication: KeyReplication = answered ?? asked ?? { type: 'RATIS', factor: 'THREE' };
    return new KeyOutputStream(
      this.#ctx,
      {
        volume,
        bucket,
        key,
        clientId: toBigInt(body.ID),
        preallocated,
        expectedBytes: options.sizeBytes ?? 0,
        replication,
      },
      layout,
      encryptor,
    );
  }

  /** Writes a whole key and commits it. */
  async writeKey(
    volume: string,
    bucket: string,
    key: string,
    data: Uint8Array,
    options: CreateKeyOptions = {},
  ): Promise<void> {
    const out = await this.createKey(volume, bucket, key, { sizeBytes: data.length, ...options });
    await out.write(data);
    await out.close();
  }

  /** The key's metadata and block locations (GetKeyInfo, as RpcClient#readFile asks for them). */
  async getKeyInfo(volume: string, bucket: string, key: string): Promise<KeyDetails> {
    return this.#keyDetails(await this.#getKeyInfoProto(volume, bucket, key));
  }

  async #getKeyInfoProto(
    volume: string,
    bucket: string,
    key: string,
    forceUpdateContainerCacheFromSCM = false,
  ): Promise<hadoop.ozone.IKeyInfo> {
    checkName('volume', volume);
    checkName('bucket', bucket);
    checkName('key', key);
    const r = await this.#submit('GetKeyInfo', {
      GetKeyInfoRequest: {
        keyArgs: {
          volumeName: volume,
          bucketName: bucket,
          keyName: key,
          latestVersionLocation: true,
          sortDatanodes: false,
          ...(forceUpdateContainerCacheFromSCM ? { forceUpdateContainerCacheFromSCM } : {}),
        },
      },
    });
    const info = r.GetKeyInfoResponse?.keyInfo;
    if (!info) throw new OzoneProtocolError(this.#ctx.om.address, 'GetKeyInfo answered without keyInfo');
    return info;
  }

  /** The key's metadata by the older LookupKey call. */
  async lookupKey(volume: string, bucket: string, key: string): Promise<KeyDetails> {
    checkName('key', key);
    const r = await this.#submit('LookupKey', {
      lookupKeyRequest: {
        keyArgs: { volumeName: volume, bucketName: bucket, keyName: key, latestVersionLocation: true },
      },
    });
    const info = r.lookupKeyResponse?.keyInfo;
    if (!info) throw new OzoneProtocolError(this.#ctx.om.address, 'LookupKey answered without keyInfo');
    return this.#keyDetails(info);
  }

  /**
   * Keys in name order, from `startAfter` (exclusive), at most `count` (default 1000). On a
   * file-system-optimized bucket, whose keys Ozone's `ListKeys` does not list, the directory tree
   * is walked with `ListStatus` as Ozone's Java client walks it: directories are listed too (as
   * `name/`, before what they hold), and a prefix naming a file or directory lists it and what is
   * under it.
   */
  async listKeys(
    volume: string,
    bucket: string,
    options: { prefix?: string; startAfter?: string; count?: number } = {},
  ): Promise<KeyListing[]> {
    checkName('volume', volume);
    checkName('bucket', bucket);
    const count = options.count ?? 1000;
    if (!Number.isSafeInteger(count) || count < 1)
      throw new OzoneInvalidArgumentError('count must be a positive integer');
    if ((await this.#bucketLayout(volume, bucket)) === 'FILE_SYSTEM_OPTIMIZED')
      return this.#forgetLayoutIfGone(
        volume,
        bucket,
        this.#listFsoKeys(volume, bucket, options.prefix ?? '', options.startAfter, count),
      );
    const r = await this.#forgetLayoutIfGone(
      volume,
      bucket,
      this.#submit('ListKeys', {
        listKeysRequest: {
          volumeName: volume,
          bucketName: bucket,
          ...(options.startAfter !== undefined ? { startKey: options.startAfter } : {}),
          ...(options.prefix !== undefined ? { prefix: options.prefix } : {}),
          count,
        },
      }),
    );
    // Ozone's OM lists key locations without their pipelines (a listing is not a read), so a
    // listing carries no blocks; open or look up a key to read it.
    return (r.listKeysResponse?.keyInfo ?? []).map((k) => keyListing(k));
  }

  async #bucketLayout(volume: string, bucket: string): Promise<BucketLayout> {
    const id = `${volume}/${bucket}`;
    const known = this.#bucketLayouts.get(id);
    if (known !== undefined) return known;
    const { layout } = await this.getBucket(volume, bucket);
    if (this.#bucketLayouts.size >= BUCKET_LAYOUTS_KEPT)
      this.#bucketLayouts.delete(this.#bucketLayouts.keys().next().value as string);
    this.#bucketLayouts.set(id, layout);
    return layout;
  }

  /** `call`'s result; when it finds the bucket or volume gone, the bucket's layout is forgotten. */
  async #forgetLayoutIfGone<T>(volume: string, bucket: string, call: Promise<T>): Promise<T> {
    try {
      return await call;
    } catch (err) {
      if (
        err instanceof OmStatusError &&
        (err.status === 'BUCKET_NOT_FOUND' || err.status === 'VOLUME_NOT_FOUND')
      )
        this.#bucketLayouts.delete(`${volume}/${bucket}`);
      throw err;
    }
  }

  async #listFsoKeys(
    volume: string,
    bucket: string,
    prefix: string,
    startAfter: string | undefined,
    count: number,
  ): Promise<KeyListing[]> {
    // The walk reads whether an entry is a directory from here: directories are few, so a file
    // costs one object (its listing) and no wrapper.
    const directories = new Set<KeyListing>();
    const withoutSlash = (name: string) => (name.endsWith('/') ? name.replace(/\/+$/, '') : name);
    const directory = (listing: KeyListing): KeyListing => {
      directories.add(listing);
      return listing;
    };
    // Straight from the decoders' fields to what the listing keeps.
    const lightStatus = (s: Readonly<LightStatus>): KeyListing => {
      const listing: KeyListing = {
        volume,
        bucket,
        name: s.isDirectory ? `${withoutSlash(s.keyName)}/` : s.keyName,
        sizeBytes: s.isDirectory ? 0 : s.dataSize,
        creationTimeMs: s.creationTime,
        modificationTimeMs: s.modificationTime,
        replicationType: hdds.ReplicationType[s.type] ?? String(s.type),
      };
      return s.isDirectory ? directory(listing) : listing;
    };
    const absent = (err: unknown) =>
      err instanceof OmStatusError &&
      ['KEY_NOT_FOUND', 'FILE_NOT_FOUND', 'DIRECTORY_NOT_FOUND'].includes(err.status);
    const keyArgs = (keyName: string) => ({ volumeName: volume, bucketName: bucket, keyName });
    return listFsoKeys<KeyListing>(
      {
        stat: async (name) => {
          try {
            return lightStatus(await this.#getFileStatusFields(volume, bucket, name));
          } catch (err) {
            if (absent(err)) return undefined;
            throw err;
          }
        },
        // ListStatusLight (Ozone 1.4 and later), as Ozone's Java client lists keys: each entry
        // without its blocks, ACLs and metadata, a fraction of the bytes to send and decode.
        children: async (dir, startKey, limit) => {
          try {
            const { taken, address } = await this.#submitTaking(
              'ListStatusLight',
              {
                listStatusRequest: {
                  keyArgs: keyArgs(dir),
                  recursive: false,
                  startKey,
                  numEntries: uint64(limit),
                },
              },
              LIST_STATUS_LIGHT_RESPONSE,
            );
            // The OM sends the body even for an empty page; none at all means it does not know the call.
            if (!taken)
              throw new OzoneProtocolError(
                address,
                'ListStatusLight answered without listStatusLightResponse (the OM predates Ozone 1.4)',
              );
            return decodeListStatusLight(taken, address, lightStatus);
          } catch (err) {
            if (absent(err)) return undefined;
            throw err;
          }
        },
        nameOf: (listing) => withoutSlash(listing.name),
        isDirectory: (listing) => directories.has(listing),
      },
      { prefix, startAfter, count, pageSize: 1000 },
    );
  }

  /** Deletes a key; on a directory (file-system buckets), `recursive` deletes what is under it. */
  async deleteKey(
    volume: string,
    bucket: string,
    key: string,
    options: { recursive?: boolean } = {},
  ): Promise<void> {
    checkName('key', key);
    await this.#submit('DeleteKey', {
      deleteKeyRequest: {
        keyArgs: {
          volumeName: volume,
          bucketName: bucket,
          keyName: key,
          ...(options.recursive !== undefined ? { recursive: options.recursive } : {}),
        },
      },
    });
  }

  /**
   * Renames a key within its bucket (OM `RenameKey`); on a file-system bucket a directory moves
   * with what is under it. `ERR_OZONE_KEY_NOT_FOUND` when `from` is missing,
   * `ERR_OZONE_KEY_ALREADY_EXISTS` when `to` exists.
   */
  async renameKey(volume: string, bucket: string, from: string, to: string): Promise<void> {
    checkName('key', from);
    checkName('toKey', to);
    await this.#submit('RenameKey', {
      renameKeyRequest: { keyArgs: { volumeName: volume, bucketName: bucket, keyName: from }, toKeyName: to },
    });
  }

  /**
   * Opens a key for positional reads. `verifyChecksum` (default: the client's
   * `ozone.client.verify.checksum`) is captured now and kept by the stream. With
   * `ozone.client.read.worker.threads` > 0 the stream's reads run on the client's read workers.
   */
  async openKey(
    volume: string,
    bucket: string,
    key: string,
    options: { verifyChecksum?: boolean; windowCacheBytes?: number } = {},
  ): Promise<KeyInputStream> {
    // Workers start before the OM call, so that their start overlaps it; when the datanodes' CA is
    // still to be asked of the OM, after it, as the workers are given the CA when they start.
    const startWorkers = (): void => {
      if (this.config.readWorkerThreads > 0 && !this.#closed)
        this.#readWorkers ??= new ReadWorkerPool(this.config.readWorkerThreads, this.#readContextOptions);
    };
    if (!this.#datanodeTrust.pending) startWorkers();
    const [info] = await Promise.all([
      this.#getKeyInfoProto(volume, bucket, key),
      this.#datanodeTrust.ready(),
    ]);
    startWorkers();
    const details = this.#keyDetails(info);
    // For a refused block token, as Ozone's RpcClient looks a key up again for its readers.
    const lookup = async (): Promise<KeyBlockLocation[]> => {
      this.#readMetrics.blockTokenRefresh();
      const fresh = await this.#getKeyInfoProto(volume, bucket, key, true);
      return keyBlockLocations(fresh, this.#ctx.om.address);
    };
    return new KeyInputStream(
      this.#ctx,
      details.blocks,
      details.sizeBytes,
      options.verifyChecksum ?? this.config.verifyChecksum,
      {
        windowCacheBytes: options.windowCacheBytes,
        workers: this.#readWorkers,
        decryptor: await this.#encryption.decryptorFor(info),
        tokenSource: { lookup },
      },
    );
  }

  /** Reads a whole key. */
  async readKey(
    volume: string,
    bucket: string,
    key: string,
    options: { verifyChecksum?: boolean } = {},
  ): Promise<Buffer> {
    const stream = await this.openKey(volume, bucket, key, options);
    try {
      return await stream.readFully(0, stream.lengthBytes);
    } finally {
      stream.close();
    }
  }

  #keyDetails(k: hadoop.ozone.IKeyInfo): KeyDetails {
    // The listing's object grown by three fields, not a spread copy of it: a lookup is a few tens
    // of µs, and each object it makes counts.
    return Object.assign(keyListing(k), {
      blocks: keyBlockLocations(k, this.#ctx.om.address),
      metadata:
        k.metadata && k.metadata.length > 0
          ? Object.fromEntries(k.metadata.map((m) => [m.key, m.value ?? '']))
          : NO_METADATA,
      encryption: keyEncryptionDetails(k),
    });
  }

  /** Closes the OM channel and every datanode channel. Later calls throw `ERR_OZONE_CLOSED`. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#ctx.om.close();
    void this.#omRpc?.close();
    this.#ctx.datanodes.close();
    this.#readWorkers?.close();
    // Nothing of a closed client is pending any more: what was still in flight fails.
    void this.#ctx.raft.close();
    this.#ctx.chunkBuffers.clear();
    void this.#encryption.close();
  }

  /** Same as {@link OzoneClient.close}, for `using`. */
  [Symbol.dispose](): void {
    this.close();
  }
}

function volumeInfo(v: hadoop.ozone.IVolumeInfo): VolumeInfo {
  return {
    name: v.volume,
    owner: v.ownerName,
    admin: v.adminName,
    creationTimeMs: ms(v.creationTime),
    quotaInBytes: toNumber(v.quotaInBytes),
  };
}

function fileStatus(volume: string, bucket: string, s: FileStatusFields): OzoneFileStatus {
  return {
    volume,
    bucket,
    keyName: s.keyName.endsWith('/') ? s.keyName.replace(/\/+$/, '') : s.keyName,
    isDirectory: s.isDirectory,
    sizeBytes: s.isDirectory ? 0 : s.dataSize,
    blockSizeBytes: s.blockSize,
    modificationTimeMs: s.modificationTime,
    owner: s.ownerName,
    replication: s.isDirectory ? 0 : requiredNodes(s),
  };
}

/**
 * The nodes a key's blocks live on, as Ozone's file system reports a file's replication
 * (`ReplicationConfig.getRequiredNodes`): data + parity for EC, else the Ratis factor.
 */
function requiredNodes(s: FileStatusFields): number {
  if (!s.hasKeyInfo) return 3;
  if (s.type === EC_TYPE && s.hasEc) return s.ecData + s.ecParity;
  return s.factor === FACTOR_ONE ? 1 : 3;
}
/** The enum values a hand-decoded status holds as plain numbers. */
const EC_TYPE: number = hdds.ReplicationType.EC;
const FACTOR_ONE: number = hdds.ReplicationFactor.ONE;

function bucketInfo(b: hadoop.ozone.IBucketInfo): BucketInfo {
  return {
    volume: b.volumeName,
    name: b.bucketName,
    layout: (om.BucketLayoutProto[b.bucketLayout ?? om.BucketLayoutProto.LEGACY] ?? 'LEGACY') as BucketLayout,
    storageType: (hdds.StorageTypeProto[b.storageType] ?? 'DISK') as StorageType,
    versioning: b.isVersionEnabled,
    creationTimeMs: ms(b.creationTime),
    encryptionKeyName: b.beinfo?.keyName ?? undefined,
    defaultReplication: bucketDefaultReplication(b.defaultReplicationConfig),
  };
}

/** A bucket's default replication as text; undefined for none, or one this client cannot name. */
function bucketDefaultReplication(
  d: hadoop.hdds.IDefaultReplicationConfig | null | undefined,
): string | undefined {
  if (!d) return undefined;
  try {
    const r = replicationFromProto(d.type, d.factor, d.ecReplicationConfig);
    return r && replicationText(r);
  } catch {
    // An EC config the coders cannot use: the bucket is still listed, its default unnamed.
    return undefined;
  }
}

/** Creates an {@link OzoneClient}. */
export function createOzoneClient(options: OzoneClientOptions): OzoneClient {
  return new OzoneClient(options);
}

/** A key's metadata when the OM sent none: one frozen object, not a new one per lookup. */
const NO_METADATA: Readonly<Record<string, string>> = Object.freeze({});

function replicationTypeName(type: number): string {
  return hdds.ReplicationType[type] ?? String(type);
}

function keyListing(k: hadoop.ozone.IKeyInfo): KeyListing {
  return {
    volume: k.volumeName,
    bucket: k.bucketName,
    name: k.keyName,
    sizeBytes: toNumber(k.dataSize),
    creationTimeMs: ms(k.creationTime),
    modificationTimeMs: ms(k.modificationTime),
    replicationType: replicationTypeName(k.type),
  };
}
