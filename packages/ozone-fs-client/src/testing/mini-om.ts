// The Ozone Manager of the embedded mini cluster: the OM calls the client makes, answered from
// an in-memory namespace that is saved to a JSON file after every change, so a cluster restarted
// on the same directory keeps its volumes, buckets and keys.
import type { MiniBlockTokens } from './mini-block-tokens.js';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { sendUnaryData, ServerUnaryCall } from '@grpc/grpc-js';
import { MiniClusterError } from '../ozone-errors.js';
import { hdds, int64, om, toBigInt, toNumber, uint64, type hadoop } from '../internal/proto/wire.js';
import { miniPipelineId } from './mini-ratis-pipelines.js';
import { uuidBits } from '../internal/ratis/pipeline-raft-group.js';
import { hsyncCommitRefusal, metadataAfterCommit, type MiniOmHsyncSettings } from './mini-om-hsync.js';
import {
  bucketDefaultReplication,
  chooseEcDatanodes,
  DEFAULT_REPLICATION_ALLOWED_CONFIGS,
  defaultReplicationProto,
  EcRefusal,
  ecConfigProto,
  ecPipelineFields,
  requestedEcConfig,
  resolvedKeyArgs,
  type StoredReplication,
} from './mini-om-ec.js';
import type { EcReplicationConfig } from '../internal/ec/ec-stripe-layout.js';
import {
  fileEncryptionProto,
  storedFileEncryption,
  type MiniOmEncryption,
  type MiniOmRefusal,
  type StoredBucketEncryption,
  type StoredFileEncryption,
} from './mini-om-encryption.js';

type StatusName = keyof typeof om.Status;
type Long = ReturnType<typeof uint64>;

/** An OM answer with a non-OK status. */
class OmFailure extends Error {
  constructor(
    readonly status: StatusName,
    message: string,
  ) {
    super(message);
  }
}

interface VolumeRecord {
  owner: string;
  admin: string;
  creationTimeMs: number;
  quotaInBytes: number;
}
interface BucketRecord {
  layout: number;
  storageType: number;
  versioning: boolean;
  owner: string;
  creationTimeMs: number;
  /** An encrypted bucket's KMS key (BucketInfo.beinfo). */
  encryption?: StoredBucketEncryption;
  /** The bucket's default replication (BucketInfo.defaultReplicationConfig), for keys that ask for none. */
  defaultReplication?: StoredReplication;
}
interface BlockRecord {
  containerId: string;
  localId: string;
  bcsid: string;
  offset: number;
  length: number;
  datanodes: string[];
  /** An EC block group: `datanodes[i]` holds replica index i + 1. */
  ec?: EcReplicationConfig;
}
interface KeyRecord {
  size: number;
  creationTimeMs: number;
  modificationTimeMs: number;
  blocks: BlockRecord[];
  owner: string;
  /** Set while the key is hsync'ed and still open (`hsyncClientId`). */
  metadata?: Record<string, string>;
  /** The key's FileEncryptionInfo, in an encrypted bucket. */
  encryption?: StoredFileEncryption;
  ec?: EcReplicationConfig;
}
interface OpenKeyRecord {
  volume: string;
  bucket: string;
  key: string;
  owner: string;
  allocated: BlockRecord[];
  creationTimeMs: number;
  factor: number;
  encryption?: StoredFileEncryption;
  ec?: EcReplicationConfig;
}
interface DirectoryRecord {
  creationTimeMs: number;
  modificationTimeMs: number;
  owner: string;
}
interface OmState {
  volumes: Record<string, VolumeRecord>;
  buckets: Record<string, BucketRecord>;
  keys: Record<string, KeyRecord>;
  /** Directories made by CreateDirectory (parents of keys are directories too, as in Ozone). */
  directories?: Record<string, DirectoryRecord>;
  nextLocalId: string;
  nextContainerId: number;
  blocksInContainer: number;
  /**
   * The open container of each EC pipeline (by pipeline id): an EC container belongs to one
   * pipeline, whose members hold its replica indexes, so block groups on other datanodes go to
   * other containers.
   */
  ecContainers?: Record<string, { containerId: number; blocks: number }>;
}

/** What a client's AllocateBlock asked the OM to avoid (its ExcludeListProto). */
interface Exclusions {
  containers: ReadonlySet<string>;
  datanodes: ReadonlySet<string>;
  pipelines: ReadonlySet<string>;
}

const NO_EXCLUSIONS: Exclusions = { containers: new Set(), datanodes: new Set(), pipelines: new Set() };

/**
 * A fault the OM applies to the next matching requests: answer a given `status`, or `garbage`
 * (bytes that are not an OMResponse), `wrong-command` (the answer of another cmdType),
 * `grpc-error` (gRPC INTERNAL, as an OM exception arrives), `never` (no answer),
 * `applied-no-answer` (the request is applied, its answer lost: a reply that never arrives).
 */
export interface OmFault {
  /** The OM command (`OMRequest.cmdType` name, e.g. `CommitKey`) it applies to. Default: every command. */
  command?: keyof typeof om.Type;
  /** How many requests it applies to. Default: all until cleared. */
  times?: number;
  /**
   * Answers an OMResponse with this `Status` (e.g. `KEY_NOT_FOUND`, message `injected`) without
   * applying the request. Default: `OK` when `response` is unset or `wrong-command`.
   */
  status?: StatusName;
  /** How the answer goes wrong (see above). Default: an OMResponse with `status`. */
  response?: 'garbage' | 'wrong-command' | 'grpc-error' | 'never' | 'applied-no-answer';
}

/** A datanode as the OM lists it in pipelines. */
export interface MiniDatanodeInfo {
  uuid: string;
  /** The standalone gRPC port. */
  port: number;
  /** The RATIS port: the Raft groups of the datanode's pipelines. */
  ratisPort: number;
  /**
   * The RATIS_DATASTREAM port of its member in a pipeline (undefined: streaming is off). Each
   * embedded group member serves its own, so the port is per pipeline, not per datanode.
   */
  dataStreamPort?: (pipelineId: string) => number | undefined;
}

/** The RATIS_DATASTREAM entry of a member, when its datanode streams (a pipeline lists it only then). */
function dataStreamPorts(d: MiniDatanodeInfo | undefined, pipelineId: string): hadoop.hdds.IPort[] {
  const port = d?.dataStreamPort?.(pipelineId);
  return port === undefined ? [] : [{ name: 'RATIS_DATASTREAM', value: port }];
}

const BLOCKS_PER_CONTAINER = 16;
/** `OzoneFileStatusProto.blockSize` as the OM reports it (`ozone.scm.block.size`). */
const FILE_STATUS_BLOCK_SIZE = 256 * 1024 * 1024;
// Local IDs start above 2^53, as real ones do, so a client that rounds them through a double breaks.
const FIRST_LOCAL_ID = 113750153625600001n;

const VOLUME_OR_BUCKET_NAME = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

/**
 * The Ozone Manager of a {@link MiniOzoneCluster}: volumes, buckets and keys in memory, saved to
 * `om-namespace.json` in the cluster's directory after every change; block allocation on the
 * cluster's pipelines; a retry cache for writes over Hadoop RPC; fault hooks and counters. One
 * instance serves the gRPC and Hadoop RPC ports (every node's, in HA mode).
 */
export class MiniOm {
  readonly #file: string;
  #state: OmState;
  readonly #open = new Map<string, OpenKeyRecord>();
  /** Requests served, by command name. */
  readonly requests = new Map<string, number>();
  /** Answers given, by command and status (`CommitKey OK`, `CommitKey KEY_NOT_FOUND`), lost ones included. */
  readonly outcomes = new Map<string, number>();
  /**
   * Writes answered from the retry cache (Hadoop RPC: a re-send with the client id and call id of
   * a write already applied), as Ozone's OM answers them from its Ratis retry cache.
   */
  retryCacheHits = 0;
  /** The retry cache of writes over Hadoop RPC, by client id and call id: the answer sent. */
  readonly #retryCache = new Map<string, Buffer>();
  #retryCacheEnabled = true;
  /** The last 64 requests and answers as they crossed the wire (for byte-level tests). */
  readonly exchanges: Array<{
    /**
     * The request as it arrived: an encoded OMRequest (over Hadoop RPC with its `userInfo` set from
     * the connection).
     */
    request: Buffer;
    /** The encoded OMResponse sent (or lost, for `applied-no-answer`); other faulted answers are not kept. */
    response: Buffer;
  }> = [];
  #faults: Array<OmFault & { left: number }> = [];
  /** `ozone.replication.allowed-configs`: which EC configs keys may ask for (tests widen it for small cells). */
  replicationAllowedConfigs: RegExp = DEFAULT_REPLICATION_ALLOWED_CONFIGS;

  constructor(
    dir: string,
    private readonly datanodes: () => readonly MiniDatanodeInfo[],
    private readonly hsyncSettings: MiniOmHsyncSettings = {
      hbaseEnhancementsAllowed: false,
      hsyncEnabled: false,
    },
    /** The OM's key provider (`hadoop.security.key.provider.path`); none: encrypted buckets are refused. */
    readonly encryption?: MiniOmEncryption,
    /** Block tokens to hand out with every block location (`hdds.block.token.enabled`); none: no tokens. */
    private readonly blockTokens?: MiniBlockTokens,
    /** The CA certificate (PEM) the service list hands out (`caCerts`) when the cluster serves TLS. */
    private readonly caCertificate?: string,
  ) {
    this.#file = join(dir, 'om-namespace.json');
    this.#state = existsSync(this.#file)
      ? (JSON.parse(readFileSync(this.#file, 'utf8')) as OmState)
      : {
          volumes: {},
          buckets: {},
          keys: {},
          nextLocalId: FIRST_LOCAL_ID.toString(),
          nextContainerId: 1,
          blocksInContainer: 0,
        };
  }

  /**
   * Adds a fault for the next matching requests. With several faults a request gets the first
   * added one that matches it and has `times` left.
   */
  injectFault(fault: OmFault): void {
    this.#faults.push({ ...fault, left: fault.times ?? Number.POSITIVE_INFINITY });
  }

  /** Removes every fault; requests a `never` fault left unanswered stay unanswered. */
  clearFaults(): void {
    this.#faults = [];
  }

  /**
   * Whether writes re-sent over Hadoop RPC are answered from the retry cache (Ozone's OM always
   * does; off, a test shows what a re-sent write does without it). Default: on.
   */
  setRetryCache(enabled: boolean): void {
    this.#retryCacheEnabled = enabled;
    this.#retryCache.clear();
  }

  /**
   * The gRPC handler of `submitRequest` (`OzoneManagerService`), with raw bytes on both sides: an
   * encoded OMRequest in, an encoded OMResponse (or a gRPC error) out. The Hadoop RPC port serves
   * the same handler; bound, so it can be passed on as it is.
   */
  readonly handle = (call: ServerUnaryCall<Buffer, Buffer>, callback: sendUnaryData<Buffer>): void => {
    let request: hadoop.ozone.OMRequest;
    try {
      request = om.OMRequest.decode(call.request);
    } catch (err) {
      callback({ code: 13, details: `InvalidProtocolBufferException: ${(err as Error).message}` });
      return;
    }
    const name = om.Type[request.cmdType] ?? String(request.cmdType);
    this.requests.set(name, (this.requests.get(name) ?? 0) + 1);
    const fault = this.#faults.find((f) => f.left > 0 && (f.command === undefined || f.command === name));
    let answer = callback;
    if (fault?.response === 'applied-no-answer') {
      fault.left--;
      answer = () => undefined;
    } else if (fault) {
      fault.left--;
      if (fault.response === 'never') return;
      if (fault.response === 'grpc-error') {
        callback({ code: 13, details: 'java.lang.NullPointerException: injected' });
        return;
      }
      if (fault.response === 'garbage') {
        callback(null, Buffer.from([0x0a, 0xff, 0xff, 0xff]));
        return;
      }
      const cmdType = fault.response === 'wrong-command' ? om.Type.ServiceList : request.cmdType;
      const status = fault.status ? om.Status[fault.status] : om.Status.OK;
      callback(
        null,
        Buffer.from(
          om.OMResponse.encode({
            cmdType,
            status,
            success: status === om.Status.OK,
            message: 'injected',
          }).finish(),
        ),
      );
      return;
    }
    // Ozone's OM: a write is looked up in the retry cache (after the leader check) before it is
    // applied; reads never are.
    const retryKey = this.#retryCacheEnabled && !isReadOnly(request.cmdType) ? retryKeyOf(call) : undefined;
    const cached = retryKey === undefined ? undefined : this.#retryCache.get(retryKey);
    if (cached) {
      this.retryCacheHits++;
      answer(null, cached);
      return;
    }
    const preExecute = this.#preExecute(request);
    if (!preExecute) {
      this.#answer(call, request, answer);
      return;
    }
    preExecute.then(
      (refusal) =>
        refusal ? this.#refuse(call, request, answer, refusal) : this.#answer(call, request, answer),
      (err: unknown) => answer({ code: 13, details: `${(err as Error).name}: ${(err as Error).message}` }),
    );
  };

  /**
   * The KMS step of Ozone's preExecute, for requests that need one: CreateBucket with an
   * encryption key, CreateKey/CreateFile in an encrypted bucket. Undefined for every other request
   * (answered at once, as before).
   */
  #preExecute(request: hadoop.ozone.OMRequest): Promise<MiniOmRefusal | undefined> | undefined {
    const T = om.Type;
    if (request.cmdType === T.CreateBucket) {
      const info = request.createBucketRequest?.bucketInfo;
      if (!info?.beinfo) return undefined;
      if (!this.encryption)
        return Promise.resolve({
          status: 'INVALID_KMS_PROVIDER',
          message: 'Invalid KMS provider, check configuration hadoop.security.key.provider.path',
        });
      return this.encryption.createBucket(info);
    }
    const args =
      request.cmdType === T.CreateKey
        ? request.createKeyRequest?.keyArgs
        : request.cmdType === T.CreateFile
          ? request.createFileRequest?.keyArgs
          : undefined;
    if (!args) return undefined;
    // Only the OM fills it, from the KMS.
    args.fileEncryptionInfo = null;
    const bucket = this.#state.buckets[`${args.volumeName}/${args.bucketName}`];
    if (!this.encryption || !bucket?.encryption) return undefined;
    return this.encryption.createKey(args, bucket.encryption);
  }

  #refuse(
    call: ServerUnaryCall<Buffer, Buffer>,
    request: hadoop.ozone.OMRequest,
    callback: sendUnaryData<Buffer>,
    refusal: MiniOmRefusal,
  ): void {
    this.#send(call, callback, {
      cmdType: request.cmdType,
      status: om.Status[refusal.status],
      success: false,
      message: refusal.message,
    });
  }

  #send(
    call: ServerUnaryCall<Buffer, Buffer>,
    callback: sendUnaryData<Buffer>,
    response: hadoop.ozone.IOMResponse,
  ): void {
    const name = om.Type[response.cmdType as number] ?? String(response.cmdType);
    const outcome = `${name} ${om.Status[response.status as number] ?? response.status}`;
    this.outcomes.set(outcome, (this.outcomes.get(outcome) ?? 0) + 1);
    const bytes = Buffer.from(om.OMResponse.encode(response).finish());
    const retryKey = this.#retryCacheEnabled && !isReadOnly(response.cmdType) ? retryKeyOf(call) : undefined;
    // Cached as applied, whether or not the answer reaches the client.
    if (retryKey !== undefined) this.#retryCache.set(retryKey, bytes);
    this.exchanges.push({ request: Buffer.from(call.request), response: bytes });
    if (this.exchanges.length > 64) this.exchanges.shift();
    callback(null, bytes);
  }

  #answer(
    call: ServerUnaryCall<Buffer, Buffer>,
    request: hadoop.ozone.OMRequest,
    callback: sendUnaryData<Buffer>,
  ): void {
    let response: hadoop.ozone.IOMResponse;
    try {
      response = {
        cmdType: request.cmdType,
        status: om.Status.OK,
        success: true,
        ...this.#dispatch(request),
      };
    } catch (err) {
      if (!(err instanceof OmFailure)) {
        callback({ code: 13, details: `${(err as Error).name}: ${(err as Error).message}` });
        return;
      }
      response = {
        cmdType: request.cmdType,
        status: om.Status[err.status],
        success: false,
        message: err.message,
      };
    }
    this.#send(call, callback, response);
  }

  /** The committed block of a key that holds `offsetInKey` (for the cluster's fault hooks). */
  blockAt(volume: string, bucket: string, key: string, offsetInKey: number): Readonly<BlockRecord> {
    const k = this.#state.keys[keyPath(volume, bucket, key)];
    const block = k?.blocks.find((b) => offsetInKey >= b.offset && offsetInKey < b.offset + b.length);
    if (!block) throw new MiniClusterError(`key ${volume}/${bucket}/${key} has no byte at ${offsetInKey}`);
    return block;
  }

  #user(request: hadoop.ozone.OMRequest): string {
    return request.userInfo?.userName || 'anonymous';
  }

  #save(): void {
    const tmp = `${this.#file}.tmp`;
    writeFileSync(tmp, JSON.stringify(this.#state));
    renameSync(tmp, this.#file);
  }

  #dispatch(r: hadoop.ozone.OMRequest): Omit<hadoop.ozone.IOMResponse, 'cmdType' | 'status'> {
    const T = om.Type;
    switch (r.cmdType) {
      case T.CreateVolume:
        return this.#createVolume(r);
      case T.InfoVolume: {
        const name = need(r.infoVolumeRequest).volumeName;
        return { infoVolumeResponse: { volumeInfo: this.#volumeInfo(name, this.#volume(name)) } };
      }
      case T.DeleteVolume: {
        const name = need(r.deleteVolumeRequest).volumeName;
        this.#volume(name);
        if (Object.keys(this.#state.buckets).some((b) => b.startsWith(`${name}/`)))
          throw new OmFailure('VOLUME_NOT_EMPTY', `Volume ${name} is not empty`);
        delete this.#state.volumes[name];
        this.#save();
        return { deleteVolumeResponse: {} };
      }
      case T.ListVolume:
        return this.#listVolumes(r);
      case T.CreateBucket:
        return this.#createBucket(r);
      case T.InfoBucket: {
        const q = need(r.infoBucketRequest);
        return {
          infoBucketResponse: {
            bucketInfo: this.#bucketInfo(
              q.volumeName,
              q.bucketName,
              this.#bucket(q.volumeName, q.bucketName),
            ),
          },
        };
      }
      case T.DeleteBucket: {
        const q = need(r.deleteBucketRequest);
        this.#bucket(q.volumeName, q.bucketName);
        const prefix = `${q.volumeName}/${q.bucketName}/`;
        if (Object.keys(this.#state.keys).some((k) => k.startsWith(prefix)))
          throw new OmFailure('BUCKET_NOT_EMPTY', `Bucket ${q.bucketName} is not empty`);
        delete this.#state.buckets[`${q.volumeName}/${q.bucketName}`];
        this.#save();
        return { deleteBucketResponse: {} };
      }
      case T.ListBuckets:
        return this.#listBuckets(r);
      case T.CreateKey:
        return this.#createKey(r);
      case T.AllocateBlock:
        return this.#allocateBlock(r);
      case T.CommitKey:
        return this.#commitKey(r);
      case T.LookupKey: {
        const a = need(r.lookupKeyRequest).keyArgs;
        return {
          lookupKeyResponse: { keyInfo: this.#keyInfo(a.volumeName, a.bucketName, a.keyName, this.#key(a)) },
        };
      }
      case T.GetKeyInfo: {
        const a = need(r.GetKeyInfoRequest).keyArgs;
        const v = this.#volume(a.volumeName);
        return {
          GetKeyInfoResponse: {
            keyInfo: this.#keyInfo(a.volumeName, a.bucketName, a.keyName, this.#key(a)),
            volumeInfo: this.#volumeInfo(a.volumeName, v),
          },
        };
      }
      case T.ListKeys:
        return this.#listKeys(r);
      case T.DeleteKey:
        return this.#deleteKey(need(r.deleteKeyRequest).keyArgs);
      case T.RenameKey:
        return this.#renameKey(need(r.renameKeyRequest));
      case T.GetFileStatus:
        return { getFileStatusResponse: { status: this.#fileStatus(need(r.getFileStatusRequest).keyArgs) } };
      case T.LookupFile: {
        const a = need(r.lookupFileRequest).keyArgs;
        const status = this.#fileStatus(a);
        if (status.isDirectory) throw new OmFailure('NOT_A_FILE', `${a.keyName} is a directory`);
        return { lookupFileResponse: { keyInfo: status.keyInfo ?? null } };
      }
      case T.CreateDirectory:
        return this.#createDirectory(r);
      case T.CreateFile:
        return this.#createFile(r);
      case T.ListStatus:
        return this.#listStatus(need(r.listStatusRequest));
      case T.ListStatusLight:
        return this.#listStatusLight(need(r.listStatusRequest));
      case T.ServiceList:
        return {
          ServiceListResponse: {
            serviceInfo: [
              { nodeType: hdds.NodeType.OM, hostname: 'localhost', servicePorts: [], OMVersion: 3 },
            ],
            // As Ozone's OM: the SCM's CA for clients to set up gRPC TLS to the datanodes.
            ...(this.caCertificate === undefined
              ? {}
              : { caCertificate: this.caCertificate, caCerts: [this.caCertificate] }),
          },
        };
      default:
        throw new OmFailure(
          'NOT_SUPPORTED_OPERATION',
          `the mini cluster's OM does not serve ${om.Type[r.cmdType] ?? r.cmdType}`,
        );
    }
  }

  #volume(name: string): VolumeRecord {
    const v = this.#state.volumes[name];
    if (!v) throw new OmFailure('VOLUME_NOT_FOUND', `Volume ${name} is not found`);
    return v;
  }

  #bucket(volume: string, bucket: string): BucketRecord {
    this.#volume(volume);
    const b = this.#state.buckets[`${volume}/${bucket}`];
    if (!b) throw new OmFailure('BUCKET_NOT_FOUND', `Bucket ${bucket} is not found`);
    return b;
  }

  #key(a: hadoop.ozone.IKeyArgs): KeyRecord {
    this.#bucket(a.volumeName, a.bucketName);
    const k = this.#state.keys[keyPath(a.volumeName, a.bucketName, a.keyName)];
    if (!k) throw new OmFailure('KEY_NOT_FOUND', `Key ${a.keyName} is not found`);
    return k;
  }

  #createVolume(r: hadoop.ozone.OMRequest): Omit<hadoop.ozone.IOMResponse, 'cmdType' | 'status'> {
    const info = need(r.createVolumeRequest).volumeInfo;
    if (!VOLUME_OR_BUCKET_NAME.test(info.volume))
      throw new OmFailure('INVALID_VOLUME_NAME', `Invalid volume name: ${info.volume}`);
    if (this.#state.volumes[info.volume])
      throw new OmFailure('VOLUME_ALREADY_EXISTS', `Volume ${info.volume} already exists`);
    this.#state.volumes[info.volume] = {
      owner: info.ownerName,
      admin: info.adminName,
      creationTimeMs: Date.now(),
      quotaInBytes: toNumber(info.quotaInBytes) || -2,
    };
    this.#save();
    return { createVolumeResponse: {} };
  }

  #volumeInfo(name: string, v: VolumeRecord): hadoop.ozone.IVolumeInfo {
    return {
      volume: name,
      ownerName: v.owner,
      adminName: v.admin,
      creationTime: uint64(v.creationTimeMs),
      modificationTime: uint64(v.creationTimeMs),
      quotaInBytes: uint64(Math.max(0, v.quotaInBytes)),
    };
  }

  #listVolumes(r: hadoop.ozone.OMRequest): Omit<hadoop.ozone.IOMResponse, 'cmdType' | 'status'> {
    const q = need(r.listVolumeRequest);
    const byCluster = q.scope === om.ListVolumeRequest.Scope.VOLUMES_BY_CLUSTER;
    const user = q.userName || this.#user(r);
    const names = Object.keys(this.#state.volumes)
      .sort()
      .filter((n) => byCluster || this.#state.volumes[n]?.owner === user)
      .filter((n) => !q.prefix || n.startsWith(q.prefix))
      .filter((n) => !q.prevKey || n > q.prevKey)
      .slice(0, q.maxKeys || 1000);
    return {
      listVolumeResponse: {
        volumeInfo: names.map((n) => this.#volumeInfo(n, this.#state.volumes[n] as VolumeRecord)),
      },
    };
  }

  #createBucket(r: hadoop.ozone.OMRequest): Omit<hadoop.ozone.IOMResponse, 'cmdType' | 'status'> {
    const info = need(r.createBucketRequest).bucketInfo;
    this.#volume(info.volumeName);
    if (!VOLUME_OR_BUCKET_NAME.test(info.bucketName))
      throw new OmFailure('INVALID_BUCKET_NAME', `Invalid bucket name: ${info.bucketName}`);
    const id = `${info.volumeName}/${info.bucketName}`;
    if (this.#state.buckets[id])
      throw new OmFailure('BUCKET_ALREADY_EXISTS', `Bucket ${info.bucketName} already exists`);
    // An older client (version < 3) gets LEGACY, as the OM's validators force it.
    const layout =
      (r.version ?? 0) < 3
        ? om.BucketLayoutProto.LEGACY
        : (info.bucketLayout ?? om.BucketLayoutProto.FILE_SYSTEM_OPTIMIZED);
    let defaultReplication: StoredReplication | undefined;
    try {
      defaultReplication = bucketDefaultReplication(
        info.defaultReplicationConfig,
        this.replicationAllowedConfigs,
      );
    } catch (err) {
      if (err instanceof EcRefusal) throw new OmFailure('INVALID_REQUEST', err.message);
      throw err;
    }
    this.#state.buckets[id] = {
      ...(defaultReplication ? { defaultReplication } : {}),
      layout,
      storageType: info.storageType,
      versioning: info.isVersionEnabled,
      owner: info.owner || this.#user(r),
      creationTimeMs: Date.now(),
      // Filled by the KMS step (#preExecute) from the key's metadata.
      ...(info.beinfo
        ? {
            encryption: {
              keyName: info.beinfo.keyName,
              suite: info.beinfo.suite ?? om.CipherSuiteProto.AES_CTR_NOPADDING,
              cryptoProtocolVersion:
                info.beinfo.cryptoProtocolVersion ?? om.CryptoProtocolVersionProto.ENCRYPTION_ZONES,
            },
          }
        : {}),
    };
    this.#save();
    return { createBucketResponse: {} };
  }

  #bucketInfo(volume: string, bucket: string, b: BucketRecord): hadoop.ozone.IBucketInfo {
    return {
      volumeName: volume,
      bucketName: bucket,
      isVersionEnabled: b.versioning,
      storageType: b.storageType,
      bucketLayout: b.layout,
      owner: b.owner,
      creationTime: uint64(b.creationTimeMs),
      modificationTime: uint64(b.creationTimeMs),
      ...(b.encryption ? { beinfo: b.encryption } : {}),
      ...(b.defaultReplication
        ? { defaultReplicationConfig: defaultReplicationProto(b.defaultReplication) }
        : {}),
    };
  }

  #listBuckets(r: hadoop.ozone.OMRequest): Omit<hadoop.ozone.IOMResponse, 'cmdType' | 'status'> {
    const q = need(r.listBucketsRequest);
    this.#volume(q.volumeName);
    const names = Object.keys(this.#state.buckets)
      .filter((id) => id.startsWith(`${q.volumeName}/`))
      .map((id) => id.slice(q.volumeName.length + 1))
      .sort()
      .filter((n) => !q.prefix || n.startsWith(q.prefix))
      .filter((n) => !q.startKey || n > q.startKey)
      .slice(0, q.count || 1000);
    return {
      listBucketsResponse: {
        bucketInfo: names.map((n) =>
          this.#bucketInfo(q.volumeName, n, this.#state.buckets[`${q.volumeName}/${n}`] as BucketRecord),
        ),
      },
    };
  }

  #newBlock(factor = 3, exclusions: Exclusions = NO_EXCLUSIONS, ec?: EcReplicationConfig): BlockRecord {
    const dns = this.datanodes();
    if (dns.length === 0) throw new OmFailure('KEY_ALLOCATION_ERROR', 'no datanodes');
    if (ec) return this.#newBlockGroup(ec, exclusions);
    const width = factor === 1 ? 1 : 3;
    // A container a client excluded (it found it closed) takes no more blocks, as SCM closes it.
    if (
      this.#state.blocksInContainer >= BLOCKS_PER_CONTAINER ||
      exclusions.containers.has(String(this.#state.nextContainerId))
    ) {
      this.#state.nextContainerId++;
      this.#state.blocksInContainer = 0;
    }
    this.#state.blocksInContainer++;
    return this.#blockRecord(
      this.#state.nextContainerId,
      dns.slice(0, width).map((d) => d.uuid),
    );
  }

  /**
   * An EC block group on d + p datanodes the client did not exclude, on a pipeline it did not
   * exclude, in that pipeline's open container (a fresh one when it has none, it is full or the
   * client excluded it).
   */
  #newBlockGroup(ec: EcReplicationConfig, exclusions: Exclusions): BlockRecord {
    const dns = this.datanodes();
    const width = ec.data + ec.parity;
    if (dns.length < width)
      throw new OmFailure(
        'KEY_ALLOCATION_ERROR',
        `an EC block group needs ${width} datanodes, ${dns.length} are in service`,
      );
    const members = chooseEcDatanodes(
      dns.map((d) => d.uuid),
      width,
      exclusions.datanodes,
      (m) => exclusions.pipelines.has(miniPipelineId(m)),
    );
    if (!members)
      throw new OmFailure(
        'KEY_ALLOCATION_ERROR',
        `no ${width} datanodes left for an EC block group outside the ${exclusions.datanodes.size} excluded datanodes and ${exclusions.pipelines.size} excluded pipelines`,
      );
    const containers = (this.#state.ecContainers ??= {});
    const pipelineId = miniPipelineId(members);
    let open = containers[pipelineId];
    if (!open || open.blocks >= BLOCKS_PER_CONTAINER || exclusions.containers.has(String(open.containerId))) {
      // A container id of its own; the replicated blocks' current container is left full.
      this.#state.nextContainerId++;
      this.#state.blocksInContainer = BLOCKS_PER_CONTAINER;
      open = { containerId: this.#state.nextContainerId, blocks: 0 };
      containers[pipelineId] = open;
    }
    open.blocks++;
    return { ...this.#blockRecord(open.containerId, members), ec };
  }

  #blockRecord(containerId: number, datanodes: string[]): BlockRecord {
    const localId = BigInt(this.#state.nextLocalId);
    this.#state.nextLocalId = (localId + 1n).toString();
    this.#save();
    return {
      containerId: String(containerId),
      localId: localId.toString(),
      bcsid: '0',
      offset: 0,
      length: 0,
      datanodes,
    };
  }

  #location(block: BlockRecord): hadoop.ozone.IKeyLocation {
    const pipelineId = miniPipelineId(block.datanodes);
    const byUuid = new Map(this.datanodes().map((d) => [d.uuid, d]));
    const members: hadoop.hdds.IDatanodeDetailsProto[] = block.datanodes.map((uuid) => {
      const d = byUuid.get(uuid);
      return {
        uuid,
        ipAddress: '127.0.0.1',
        hostName: 'localhost',
        // Reads go to the standalone port, writes through the pipeline's Raft group on the RATIS
        // port, as on a real datanode.
        ports: [
          { name: 'STANDALONE', value: d?.port ?? 0 },
          { name: 'RATIS', value: d?.ratisPort ?? 0 },
          ...dataStreamPorts(d, pipelineId),
        ],
        persistedOpState: hdds.NodeOperationalState.IN_SERVICE,
        // DatanodeVersion SHORT_CIRCUIT_READS: a client may ask these datanodes for short-circuit access.
        currentVersion: 4,
      };
    });
    return {
      blockID: {
        containerBlockID: {
          containerID: int64(BigInt(block.containerId)),
          localID: int64(BigInt(block.localId)),
        },
        blockCommitSequenceId: uint64(BigInt(block.bcsid)),
      },
      offset: uint64(0),
      length: uint64(block.length),
      createVersion: uint64(0),
      ...(this.blockTokens === undefined
        ? {}
        : { token: this.blockTokens.issue(BigInt(block.containerId), BigInt(block.localId), '') }),
      pipeline: {
        members,
        id: { id: pipelineId, uuid128: uuidBits(pipelineId) },
        state: hdds.PipelineState.PIPELINE_OPEN,
        type: hdds.ReplicationType.RATIS,
        factor: members.length === 3 ? hdds.ReplicationFactor.THREE : hdds.ReplicationFactor.ONE,
        leaderID: block.datanodes[0] ?? '',
        ...(block.ec ? ecPipelineFields(block.ec, members.length) : {}),
      },
    };
  }

  #keyInfo(volume: string, bucket: string, key: string, k: KeyRecord): hadoop.ozone.IKeyInfo {
    return {
      volumeName: volume,
      bucketName: bucket,
      keyName: key,
      dataSize: uint64(k.size),
      type: hdds.ReplicationType.RATIS,
      factor: k.blocks[0]?.datanodes.length === 1 ? hdds.ReplicationFactor.ONE : hdds.ReplicationFactor.THREE,
      creationTime: uint64(k.creationTimeMs),
      modificationTime: uint64(k.modificationTimeMs),
      latestVersion: uint64(0),
      keyLocationList: [{ version: uint64(0), keyLocations: k.blocks.map((b) => this.#location(b)) }],
      ownerName: k.owner,
      isFile: true,
      metadata: Object.entries(k.metadata ?? {}).map(([key, value]) => ({ key, value })),
      ...(k.encryption ? { fileEncryptionInfo: fileEncryptionProto(k.encryption) } : {}),
      ...(k.ec
        ? { type: hdds.ReplicationType.EC, factor: null, ecReplicationConfig: ecConfigProto(k.ec) }
        : {}),
    };
  }

  #createKey(r: hadoop.ozone.OMRequest): Omit<hadoop.ozone.IOMResponse, 'cmdType' | 'status'> {
    const a = need(r.createKeyRequest).keyArgs;
    this.#bucket(a.volumeName, a.bucketName);
    if (!a.keyName) throw new OmFailure('INVALID_KEY_NAME', 'empty key name');
    const opened = this.#openNewKey(r, a);
    return { createKeyResponse: { keyInfo: opened.keyInfo, ID: opened.ID, openVersion: uint64(0) } };
  }

  /** Opens a key for writing (CreateKey and CreateFile): its first block and the open-key ID. */
  #openNewKey(
    r: hadoop.ozone.OMRequest,
    asked: hadoop.ozone.IKeyArgs,
  ): { keyInfo: hadoop.ozone.IKeyInfo; ID: Long } {
    const bucket = this.#bucket(asked.volumeName, asked.bucketName);
    const a = resolvedKeyArgs(asked, bucket.defaultReplication);
    // As Ozone's validateEncryptionKeyInfo: an OM without a key provider cannot write here.
    if (bucket.encryption && !a.fileEncryptionInfo)
      throw new OmFailure(
        'INVALID_REQUEST',
        `Attempting to create unencrypted file ${a.keyName} in encrypted bucket ${a.volumeName}/${a.bucketName}`,
      );
    const encryption = a.fileEncryptionInfo ? storedFileEncryption(a.fileEncryptionInfo) : undefined;
    const clientId = BigInt.asUintN(63, randomBytes(8).readBigUInt64BE());
    const factor = a.factor === hdds.ReplicationFactor.ONE ? 1 : 3;
    const ec = this.#requestedEcConfig(a);
    const first = this.#newBlock(factor, undefined, ec);
    const now = Date.now();
    this.#open.set(clientId.toString(), {
      factor,
      volume: a.volumeName,
      bucket: a.bucketName,
      key: a.keyName,
      owner: a.ownerName || this.#user(r),
      allocated: [first],
      creationTimeMs: now,
      ...(encryption ? { encryption } : {}),
      ...(ec ? { ec } : {}),
    });
    const keyInfo = this.#keyInfo(a.volumeName, a.bucketName, a.keyName, {
      size: toNumber(a.dataSize),
      creationTimeMs: now,
      modificationTimeMs: now,
      blocks: [first],
      owner: a.ownerName || this.#user(r),
      ...(encryption ? { encryption } : {}),
      ...(ec ? { ec } : {}),
    });
    // The key's replication as asked (or the default, THREE), whatever the blocks' pipelines hold.
    if (!ec) keyInfo.factor = factor === 1 ? hdds.ReplicationFactor.ONE : hdds.ReplicationFactor.THREE;
    return { keyInfo, ID: uint64(clientId) };
  }

  #requestedEcConfig(a: hadoop.ozone.IKeyArgs): EcReplicationConfig | undefined {
    try {
      return requestedEcConfig(a, this.replicationAllowedConfigs);
    } catch (err) {
      if (err instanceof EcRefusal) throw new OmFailure('INVALID_REQUEST', err.message);
      throw err;
    }
  }

  #openKey(a: hadoop.ozone.IKeyArgs, clientId: bigint): OpenKeyRecord {
    const open = this.#open.get(clientId.toString());
    if (!open || open.volume !== a.volumeName || open.bucket !== a.bucketName || open.key !== a.keyName) {
      throw new OmFailure('KEY_NOT_FOUND', `Open key ${a.keyName} with client ID ${clientId} is not found`);
    }
    return open;
  }

  #allocateBlock(r: hadoop.ozone.OMRequest): Omit<hadoop.ozone.IOMResponse, 'cmdType' | 'status'> {
    const q = need(r.allocateBlockRequest);
    const open = this.#openKey(q.keyArgs, toBigInt(q.clientID));
    const block = this.#newBlock(open.factor, exclusions(q.excludeList), open.ec);
    open.allocated.push(block);
    return { allocateBlockResponse: { keyLocation: this.#location(block) } };
  }

  #commitKey(r: hadoop.ozone.OMRequest): Omit<hadoop.ozone.IOMResponse, 'cmdType' | 'status'> {
    const q = need(r.commitKeyRequest);
    const a = q.keyArgs;
    // Refused before anything else is looked at, as in the OM's preExecute.
    const refusal = hsyncCommitRefusal(this.hsyncSettings, q);
    if (refusal) throw new OmFailure('NOT_SUPPORTED_OPERATION', refusal);
    const hsync = q.hsync === true;
    const open = this.#openKey(a, toBigInt(q.clientID));
    this.#bucket(a.volumeName, a.bucketName);
    const blocks: BlockRecord[] = [];
    let expectedOffset = 0;
    for (const loc of a.keyLocations ?? []) {
      const localId = toBigInt(loc.blockID.containerBlockID.localID).toString();
      const allocated = open.allocated.find((b) => b.localId === localId);
      if (!allocated)
        throw new OmFailure('INVALID_REQUEST', `block ${localId} was not allocated to this key`);
      // KeyLocation.offset is the offset within the block (0, as Ozone's writers send it); the
      // block's place in the key is the sum of the lengths before it.
      if (toNumber(loc.offset) !== 0)
        throw new OmFailure(
          'INVALID_REQUEST',
          `block ${localId} at block offset ${toNumber(loc.offset)}, expected 0`,
        );
      const offset = expectedOffset;
      const length = toNumber(loc.length);
      expectedOffset += length;
      blocks.push({
        ...allocated,
        offset,
        length,
        bcsid: toBigInt(loc.blockID.blockCommitSequenceId).toString(),
      });
    }
    if (toNumber(a.dataSize) !== expectedOffset)
      throw new OmFailure(
        'INVALID_REQUEST',
        `dataSize ${toNumber(a.dataSize)} does not match the blocks' ${expectedOffset} bytes`,
      );
    // An hsync leaves the key open for more writes and hsyncs.
    if (!hsync) this.#open.delete(toBigInt(q.clientID).toString());
    const path = keyPath(a.volumeName, a.bucketName, a.keyName);
    const previous = this.#state.keys[path];
    const metadata = metadataAfterCommit(toBigInt(q.clientID), hsync);
    this.#state.keys[path] = {
      size: expectedOffset,
      creationTimeMs: previous?.creationTimeMs ?? open.creationTimeMs,
      modificationTimeMs: Date.now(),
      blocks,
      owner: open.owner,
      ...(metadata ? { metadata } : {}),
      ...(open.encryption ? { encryption: open.encryption } : {}),
      ...(open.ec ? { ec: open.ec } : {}),
    };
    this.#save();
    return { commitKeyResponse: {} };
  }

  // File-system requests with the rules of Ozone's file-system buckets: the parents of a key are
  // directories (made by CreateDirectory or implied by the key), and a path is never both a file
  // and a directory. Names are compared without leading or trailing slashes.

  #directories(): Record<string, DirectoryRecord> {
    return (this.#state.directories ??= {});
  }

  /** What `name` is in the bucket: a file, a directory (explicit or a key's parent), or nothing. */
  #kind(volume: string, bucket: string, name: string): 'file' | 'directory' | undefined {
    if (name === '') return 'directory';
    const path = keyPath(volume, bucket, name);
    if (this.#state.keys[path]) return 'file';
    if (this.#directories()[path]) return 'directory';
    const under = `${path}/`;
    for (const p of Object.keys(this.#state.keys)) if (p.startsWith(under)) return 'directory';
    for (const p of Object.keys(this.#directories())) if (p.startsWith(under)) return 'directory';
    return undefined;
  }

  #directoryInfo(volume: string, bucket: string, name: string): hadoop.ozone.IKeyInfo {
    const record = this.#directories()[keyPath(volume, bucket, name)];
    const b = this.#bucket(volume, bucket);
    const time = uint64(record?.modificationTimeMs ?? b.creationTimeMs);
    return {
      volumeName: volume,
      bucketName: bucket,
      keyName: name === '' ? '' : `${name}/`,
      dataSize: uint64(0),
      type: hdds.ReplicationType.RATIS,
      factor: hdds.ReplicationFactor.THREE,
      creationTime: uint64(record?.creationTimeMs ?? b.creationTimeMs),
      modificationTime: time,
      keyLocationList: [],
      ownerName: record?.owner ?? b.owner,
      isFile: false,
    };
  }

  #statusOf(volume: string, bucket: string, name: string): hadoop.ozone.IOzoneFileStatusProto | undefined {
    const kind = this.#kind(volume, bucket, name);
    if (kind === 'file') {
      const record = this.#state.keys[keyPath(volume, bucket, name)] as KeyRecord;
      return {
        keyInfo: this.#keyInfo(volume, bucket, name, record),
        blockSize: uint64(FILE_STATUS_BLOCK_SIZE),
        isDirectory: false,
      };
    }
    if (kind === 'directory')
      return {
        keyInfo: this.#directoryInfo(volume, bucket, name),
        blockSize: uint64(FILE_STATUS_BLOCK_SIZE),
        isDirectory: true,
      };
    return undefined;
  }

  #fileStatus(a: hadoop.ozone.IKeyArgs): hadoop.ozone.IOzoneFileStatusProto {
    this.#bucket(a.volumeName, a.bucketName);
    const name = fileSystemName(a.keyName);
    const status = this.#statusOf(a.volumeName, a.bucketName, name);
    if (!status)
      throw new OmFailure(
        'FILE_NOT_FOUND',
        `Unable to get file status: volume: ${a.volumeName} bucket: ${a.bucketName} key: ${name}`,
      );
    return status;
  }

  #createDirectory(r: hadoop.ozone.OMRequest): Omit<hadoop.ozone.IOMResponse, 'cmdType' | 'status'> {
    const a = need(r.createDirectoryRequest).keyArgs;
    this.#bucket(a.volumeName, a.bucketName);
    const name = fileSystemName(a.keyName);
    const chain = [...ancestorsOf(name), name].filter((n) => n !== '');
    for (const path of chain) {
      if (this.#kind(a.volumeName, a.bucketName, path) === 'file')
        throw new OmFailure(
          'FILE_ALREADY_EXISTS',
          `Unable to create directory: ${name} in volume/bucket: ${a.volumeName}/${a.bucketName} as file: ${path} already exists`,
        );
    }
    if (this.#kind(a.volumeName, a.bucketName, name) === 'directory')
      throw new OmFailure('DIRECTORY_ALREADY_EXISTS', `Directory ${name} already exists`);
    const now = Date.now();
    const owner = a.ownerName || this.#user(r);
    for (const path of chain) {
      const id = keyPath(a.volumeName, a.bucketName, path);
      this.#directories()[id] ??= { creationTimeMs: now, modificationTimeMs: now, owner };
    }
    this.#save();
    return { createDirectoryResponse: {} };
  }

  #createFile(r: hadoop.ozone.OMRequest): Omit<hadoop.ozone.IOMResponse, 'cmdType' | 'status'> {
    const q = need(r.createFileRequest);
    const a = q.keyArgs;
    this.#bucket(a.volumeName, a.bucketName);
    const name = fileSystemName(a.keyName);
    if (name === '' || this.#kind(a.volumeName, a.bucketName, name) === 'directory')
      throw new OmFailure(
        'NOT_A_FILE',
        `Can not create file: ${name} as there is already directory in the given path`,
      );
    const ancestors = ancestorsOf(name);
    for (const path of ancestors) {
      if (this.#kind(a.volumeName, a.bucketName, path) === 'file')
        throw new OmFailure(
          'FILE_ALREADY_EXISTS',
          `Cannot create file: ${name} as there is already file in the given path: ${path}`,
        );
    }
    if (!q.isOverwrite && this.#kind(a.volumeName, a.bucketName, name) === 'file')
      throw new OmFailure('FILE_ALREADY_EXISTS', `File ${name} already exists`);
    const parent = ancestors[ancestors.length - 1] ?? '';
    if (!q.isRecursive && this.#kind(a.volumeName, a.bucketName, parent) !== 'directory')
      throw new OmFailure(
        'DIRECTORY_NOT_FOUND',
        `Cannot create file: ${name} as parent directory doesn't exist`,
      );
    // Missing parents become directories now, as Ozone's file-system buckets make them at create.
    const now = Date.now();
    const owner = a.ownerName || this.#user(r);
    for (const path of ancestors)
      this.#directories()[keyPath(a.volumeName, a.bucketName, path)] ??= {
        creationTimeMs: now,
        modificationTimeMs: now,
        owner,
      };
    const opened = this.#openNewKey(r, { ...a, keyName: name });
    return { createFileResponse: { keyInfo: opened.keyInfo, ID: opened.ID, openVersion: uint64(0) } };
  }

  #listStatus(q: hadoop.ozone.IListStatusRequest): Omit<hadoop.ozone.IOMResponse, 'cmdType' | 'status'> {
    const a = q.keyArgs;
    const status = this.#fileStatus(a);
    if (!status.isDirectory) return { listStatusResponse: { statuses: [status] } };
    const name = fileSystemName(a.keyName);
    const bucketPrefix = keyPath(a.volumeName, a.bucketName, '');
    const prefix = name === '' ? '' : `${name}/`;
    const children = new Set<string>();
    for (const path of [...Object.keys(this.#state.keys), ...Object.keys(this.#directories())]) {
      if (!path.startsWith(bucketPrefix + prefix) || path.length === (bucketPrefix + prefix).length) continue;
      const relative = path.slice(bucketPrefix.length);
      if (q.recursive) {
        for (const ancestor of ancestorsOf(relative))
          if (ancestor.length > name.length) children.add(ancestor);
        children.add(relative);
      } else children.add(prefix + (relative.slice(prefix.length).split('/')[0] as string));
    }
    const startKey = q.startKey ? fileSystemName(q.startKey) : '';
    const numEntries = toNumber(q.numEntries) > 0 ? toNumber(q.numEntries) : 1000;
    // startKey is inclusive, as Ozone's listStatus has it (the file system drops the repeated entry).
    const page = [...children]
      .sort()
      .filter((c) => c >= startKey)
      .slice(0, numEntries);
    return {
      listStatusResponse: {
        statuses: page.map(
          (c) => this.#statusOf(a.volumeName, a.bucketName, c) as hadoop.ozone.IOzoneFileStatusProto,
        ),
      },
    };
  }

  /** ListStatus's listing with each entry cut to what a listing needs, as Ozone's OM answers it. */
  #listStatusLight(q: hadoop.ozone.IListStatusRequest): Omit<hadoop.ozone.IOMResponse, 'cmdType' | 'status'> {
    const full = this.#listStatus(q).listStatusResponse?.statuses ?? [];
    return {
      listStatusLightResponse: {
        statuses: full.map(({ keyInfo: k, blockSize, isDirectory }) => ({
          volumeName: k?.volumeName ?? null,
          bucketName: k?.bucketName ?? null,
          basicKeyInfo: k
            ? {
                keyName: k.keyName,
                dataSize: k.dataSize,
                creationTime: k.creationTime,
                modificationTime: k.modificationTime,
                type: k.type,
                factor: k.factor ?? null,
                ownerName: k.ownerName ?? null,
                isEncrypted: k.fileEncryptionInfo != null,
                isFile: !isDirectory,
              }
            : null,
          blockSize: blockSize ?? null,
          isDirectory: isDirectory ?? false,
        })),
      },
    };
  }

  #deleteKey(a: hadoop.ozone.IKeyArgs): Omit<hadoop.ozone.IOMResponse, 'cmdType' | 'status'> {
    this.#bucket(a.volumeName, a.bucketName);
    const exact = this.#state.keys[keyPath(a.volumeName, a.bucketName, a.keyName)];
    const name = exact ? a.keyName : fileSystemNameOrUndefined(a.keyName);
    const kind = name === undefined ? undefined : this.#kind(a.volumeName, a.bucketName, name);
    if (name === undefined || name === '' || kind === undefined)
      throw new OmFailure('KEY_NOT_FOUND', `Key ${a.keyName} is not found`);
    const path = keyPath(a.volumeName, a.bucketName, name);
    if (kind === 'file') {
      const record = this.#state.keys[path] as KeyRecord;
      delete this.#state.keys[path];
      this.#save();
      return { deleteKeyResponse: { keyInfo: this.#keyInfo(a.volumeName, a.bucketName, name, record) } };
    }
    const under = `${path}/`;
    const descendants = [
      ...Object.keys(this.#state.keys).filter((p) => p.startsWith(under)),
      ...Object.keys(this.#directories()).filter((p) => p.startsWith(under)),
    ];
    if (descendants.length > 0 && !a.recursive)
      throw new OmFailure('DIRECTORY_NOT_EMPTY', `Directory is not empty. Key: ${name}`);
    for (const p of descendants) {
      delete this.#state.keys[p];
      delete this.#directories()[p];
    }
    delete this.#directories()[path];
    this.#save();
    return { deleteKeyResponse: {} };
  }

  #renameKey(q: hadoop.ozone.IRenameKeyRequest): Omit<hadoop.ozone.IOMResponse, 'cmdType' | 'status'> {
    const a = q.keyArgs;
    this.#bucket(a.volumeName, a.bucketName);
    if (!q.toKeyName) throw new OmFailure('INVALID_KEY_NAME', 'empty target key name');
    const exact = this.#state.keys[keyPath(a.volumeName, a.bucketName, a.keyName)];
    const from = exact ? a.keyName : fileSystemNameOrUndefined(a.keyName);
    const kind = from === undefined || from === '' ? undefined : this.#kind(a.volumeName, a.bucketName, from);
    if (from === undefined || kind === undefined)
      throw new OmFailure('KEY_NOT_FOUND', `Key ${a.keyName} is not found`);
    const to = exact ? q.toKeyName : fileSystemName(q.toKeyName);
    if (
      this.#state.keys[keyPath(a.volumeName, a.bucketName, to)] ||
      this.#kind(a.volumeName, a.bucketName, fileSystemNameOrUndefined(to) ?? to)
    )
      throw new OmFailure('KEY_ALREADY_EXISTS', `Key ${q.toKeyName} already exists`);
    const fromPath = keyPath(a.volumeName, a.bucketName, from);
    const toPath = keyPath(a.volumeName, a.bucketName, to);
    if (kind === 'file') {
      const record = this.#state.keys[fromPath] as KeyRecord;
      delete this.#state.keys[fromPath];
      this.#state.keys[toPath] = { ...record, modificationTimeMs: Date.now() };
    } else {
      if (to.startsWith(`${from}/`))
        throw new OmFailure('KEY_RENAME_ERROR', `Cannot rename a directory to its own subdirectory: ${to}`);
      const move = <T>(table: Record<string, T>): void => {
        for (const p of Object.keys(table)) {
          if (p !== fromPath && !p.startsWith(`${fromPath}/`)) continue;
          table[toPath + p.slice(fromPath.length)] = table[p] as T;
          delete table[p];
        }
      };
      move(this.#state.keys);
      move(this.#directories());
    }
    this.#save();
    return { renameKeyResponse: {} };
  }

  #listKeys(r: hadoop.ozone.OMRequest): Omit<hadoop.ozone.IOMResponse, 'cmdType' | 'status'> {
    const q = need(r.listKeysRequest);
    // As Ozone's OM does: a file-system-optimized bucket keeps its files under their parent
    // directory's id, which ListKeys does not walk, so it lists none (clients walk ListStatus).
    if (
      (this.#bucket(q.volumeName, q.bucketName).layout as hadoop.ozone.BucketLayoutProto) ===
      om.BucketLayoutProto.FILE_SYSTEM_OPTIMIZED
    )
      return { listKeysResponse: { keyInfo: [], isTruncated: false } };
    const prefix = `${q.volumeName}/${q.bucketName}/`;
    const count = (q.count ?? 0) > 0 ? (q.count as number) : 1000;
    const names = Object.keys(this.#state.keys)
      .filter((p) => p.startsWith(prefix))
      .map((p) => p.slice(prefix.length))
      .sort()
      .filter((n) => !q.prefix || n.startsWith(q.prefix))
      .filter((n) => !q.startKey || n > q.startKey);
    const page = names.slice(0, count);
    return {
      listKeysResponse: {
        // As Ozone's OM does: a listing's key locations carry no pipeline.
        keyInfo: page.map((n) =>
          withoutPipelines(
            this.#keyInfo(q.volumeName, q.bucketName, n, this.#state.keys[prefix + n] as KeyRecord),
          ),
        ),
        isTruncated: names.length > page.length,
      },
    };
  }
}

function withoutPipelines(info: hadoop.ozone.IKeyInfo): hadoop.ozone.IKeyInfo {
  return {
    ...info,
    keyLocationList: (info.keyLocationList ?? []).map((v) => ({
      ...v,
      keyLocations: (v.keyLocations ?? []).map(({ pipeline: _pipeline, ...location }) => location),
    })),
  };
}

function keyPath(volume: string, bucket: string, key: string): string {
  return `${volume}/${bucket}/${key}`;
}

function exclusions(list: hadoop.hdds.IExcludeListProto | null | undefined): Exclusions {
  return {
    containers: new Set((list?.containerIds ?? []).map((id) => toBigInt(id).toString())),
    datanodes: new Set(list?.datanodes ?? []),
    pipelines: new Set((list?.pipelineIds ?? []).map((p) => p.id ?? '')),
  };
}

function need<T>(body: T | null | undefined): T {
  if (body == null) throw new OmFailure('INVALID_REQUEST', 'the request body for its cmdType is missing');
  return body;
}

/** A key name as the file system sees it: no leading or trailing slash, no empty, `.` or `..` part. */
function fileSystemName(keyName: string): string {
  const name = fileSystemNameOrUndefined(keyName);
  if (name === undefined) throw new OmFailure('INVALID_KEY_NAME', `Invalid key name: ${keyName}`);
  return name;
}

function fileSystemNameOrUndefined(keyName: string): string | undefined {
  const name = keyName.replace(/^\/+/, '').replace(/\/+$/, '');
  if (name === '') return '';
  return name.split('/').some((part) => part === '' || part === '.' || part === '..') ? undefined : name;
}

/** The parent directories of a name, outermost first ("a/b/c" → "a", "a/b"). */
function ancestorsOf(name: string): string[] {
  const parts = name.split('/');
  return parts.slice(0, -1).map((_, i) => parts.slice(0, i + 1).join('/'));
}

/**
 * The OM commands that change nothing (Ozone's `OmUtils.isReadOnly`, for the commands this OM
 * serves): they bypass the retry cache.
 */
const READ_ONLY_COMMANDS: ReadonlySet<number> = new Set([
  om.Type.InfoVolume,
  om.Type.InfoBucket,
  om.Type.ListVolume,
  om.Type.ListBuckets,
  om.Type.ListKeys,
  om.Type.LookupKey,
  om.Type.GetKeyInfo,
  om.Type.GetFileStatus,
  om.Type.LookupFile,
  om.Type.ListStatus,
  om.Type.ListStatusLight,
  om.Type.ServiceList,
]);

function isReadOnly(cmdType: number): boolean {
  return READ_ONLY_COMMANDS.has(cmdType);
}

/** A call that came over Hadoop RPC carries the caller's identity (see mini-om-rpc.ts). */
export interface MiniOmRpcCall {
  request: Buffer;
  /** The caller's client id (hex) and call id. */
  retryKey: string;
}

function retryKeyOf(call: unknown): string | undefined {
  const key = (call as Partial<MiniOmRpcCall>).retryKey;
  return typeof key === 'string' ? key : undefined;
}
