import { mkdtempSync, rmSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Server } from '@grpc/grpc-js';
import { ServerCredentials } from '@grpc/grpc-js';
import type { HadoopRpcTestServer } from '@fastpath/hadoop-rpc/testing';
import { MiniClusterError } from '../ozone-errors.js';
import { rawMethod } from '../internal/grpc/raw-bytes.js';
import { OM_SUBMIT_REQUEST_PATH } from '../internal/grpc/om-transport.js';
import { MiniDatanode, type DatanodeCounters, type DatanodeFault } from './mini-datanode.js';
import type { ShortCircuitFault } from './mini-domain-socket-server.js';
import { MiniOm } from './mini-om.js';
import { MiniOmHa } from './mini-om-ha.js';
import { serveOmOverHadoopRpc } from './mini-om-rpc.js';
import { MiniBlockTokens } from './mini-block-tokens.js';
import { MiniOmSecurity, type MiniOmSecurityOptions } from './mini-om-security.js';
import { MiniOmEncryption } from './mini-om-encryption.js';
import type { KmsProviderOptions } from '../internal/crypto/kms-key-provider.js';
import { miniOmHsyncSettings } from './mini-om-hsync.js';
import { MiniRatisPipelines } from './mini-ratis-pipelines.js';
import { serveRawGrpc } from './serve-raw-grpc.js';
import { createTlsFixture } from './tls-fixture.js';

/** Options of {@link startMiniOzoneCluster}. */
export interface MiniOzoneClusterOptions {
  /** Number of datanodes; every block is placed on the first three. Default: 3. */
  datanodes?: number;
  /** Directory of the cluster's data; reused as it is when it exists (data survives a restart). Default: a fresh temporary directory, removed on close. */
  dir?: string;
  /** Serve TLS with a generated CA (`cluster.caFile`). Default: false. */
  tls?: boolean;
  /** OM port (gRPC). Default: 0 (a free port). */
  omPort?: number;
  /** OM Hadoop RPC port (`OzoneManagerProtocol`; Ozone's is 9862). Default: 0 (a free port). */
  omRpcPort?: number;
  /**
   * Datanodes serve short-circuit reads on this Unix domain socket path (`ozone.domain.socket.path`;
   * `_PORT` becomes each datanode's standalone port, so one template serves them all). Needs the
   * native addon. Default: none (gRPC only).
   */
  domainSocketPath?: string;
  /**
   * How long a pipeline's leader holds a watch before answering NotReplicated, in ms (Ozone's
   * `hdds.ratis.raft.server.watch.timeout`). Default: 30000.
   */
  ratisWatchTimeoutMs?: number;
  /**
   * Ratis streaming writes (Ozone's `hdds.container.ratis.datastream.enabled`): each pipeline's
   * members also serve Ratis's DataStream protocol, and the OM lists their `RATIS_DATASTREAM`
   * ports in the pipelines, so that clients with `ozone.fs.datastream.enabled` stream their
   * blocks. Default: false, as in Ozone.
   */
  dataStream?: boolean;
  /**
   * OM settings under Ozone's keys. The OM reads `ozone.hbase.enhancements.allowed` and
   * `ozone.fs.hsync.enabled` (both default false; with both true it takes CommitKey with `hsync`);
   * any other key is refused. With `hadoop.security.key.provider.path` (a KMS, e.g.
   * `kms://http@127.0.0.1:9600/kms`) the OM serves encrypted buckets as Ozone's does: it checks a
   * bucket's key with the KMS and asks it for a new encrypted data key (`generateEncryptedKey`)
   * for every key created in such a bucket. Default: none.
   */
  omConfiguration?: Readonly<Record<string, string>>;
  /**
   * OM HA: this many OM nodes (`omNode-1`…) in front of one namespace, the first the leader, each
   * on a port of its own; the others answer OMNotLeaderException naming the leader. Clients reach
   * them through `cluster.omClientProperties` and the service id. Default: 0 (one OM, no HA).
   */
  omHa?: number;
  /**
   * A secure OM on the Hadoop RPC port, as `ozone.security.enabled` makes it: SIMPLE refused,
   * TOKEN (its own delegation tokens) and KERBEROS (`kerberos.principal` with its `keytab`, e.g.
   * from `@fastpath/kerberos-fixture`) offered at `protection`, and the delegation token calls
   * answered with Ozone's rules. The gRPC port stays as it is. Default: none (SIMPLE).
   */
  security?: MiniOmSecurityOptions;
  /** The OM service id in HA mode (`ozone.om.service.ids`). Default: `omservice`. */
  omServiceId?: string;
  /**
   * How the OM authenticates to its KMS (`@fastpath/kms-client` options without the URL): the
   * OM's user needs `GENERATE_EEK` (and `GET_METADATA`) on bucket keys. Default: `{ user: 'om' }`.
   */
  omKms?: KmsProviderOptions;
}

/**
 * The defaults {@link startMiniOzoneCluster} applies to the options left out (see
 * {@link MiniOzoneClusterOptions}).
 */
export const DEFAULT_MINI_OZONE_CLUSTER_OPTIONS = Object.freeze({
  /** Datanodes started; blocks go to the first three (RATIS/THREE) or the first (RATIS/ONE). */
  datanodes: 3,
  /** Plain-text gRPC; `tls: true` serves TLS with a generated CA instead. */
  tls: false,
  /** The OM's gRPC port; 0 picks a free one. */
  omPort: 0,
  /** The OM's Hadoop RPC port; 0 picks a free one. */
  omRpcPort: 0,
  /** How long a pipeline leader holds a watch, in ms (`hdds.ratis.raft.server.watch.timeout`). */
  ratisWatchTimeoutMs: 30_000,
  /** Ratis DataStream on the datanodes. */
  dataStream: false,
  /** OM nodes in HA mode; 0 runs one OM without HA. */
  omHa: 0,
  /** The service id of the HA OMs (`ozone.om.service.ids`). */
  omServiceId: 'omservice',
  /** The user the OM names to its KMS when `omKms` leaves `user` out. */
  omKmsUser: 'om',
});

const KEY_PROVIDER_PATH = 'hadoop.security.key.provider.path';

/** One OM node of an HA cluster: its gRPC and Hadoop RPC servers (while it runs) and ports. */
interface HaNodeServer {
  server: Server | undefined;
  port: number;
  rpc: HadoopRpcTestServer | undefined;
  rpcPort: number;
  /** The Hadoop RPC server's close, awaited before its port is served again. */
  rpcClosed?: Promise<void> | undefined;
}

const omServiceDefinition = { submitRequest: rawMethod(OM_SUBMIT_REQUEST_PATH, false, false) };

/**
 * An Ozone Manager and datanodes in this Node process, serving Ozone's own gRPC services on
 * loopback: fastpath's embedded default for tests, benchmarks and local work.
 *
 * @example
 * ```ts
 * await using cluster = await startMiniOzoneCluster({ datanodes: 3 });
 * const client = createOzoneClient({ omAddress: cluster.omAddress });
 * ```
 */
export class MiniOzoneCluster {
  /**
   * The directory of the cluster's data (the OM's namespace file, each datanode's `datanode-<i>`
   * directory, the TLS files); removed on close only when the cluster created it.
   */
  readonly dir: string;
  /**
   * The OM's state and fault hooks (in HA mode the namespace every OM node shares). It stays usable
   * while its servers are stopped ({@link MiniOzoneCluster.stopOm}).
   */
  readonly om: MiniOm;
  /** The datanodes in start order, the order a numeric `which` indexes; blocks go to the first three. */
  readonly datanodes: readonly MiniDatanode[];
  /**
   * The Raft group of each pipeline and each datanode's RATIS port, through which every block is
   * written: `ratis.group(pipelineId)` is an embedded group of `@fastpath/ratis-client/testing`
   * with its fault hooks (NotLeader, a stopped leader, lost replies, held commits).
   */
  readonly ratis: MiniRatisPipelines;
  /** The CA file clients need when the cluster serves TLS. */
  readonly caFile: string | undefined;
  #omServer: Server | undefined;
  readonly #omPort: number;
  #omRpcServer: HadoopRpcTestServer | undefined;
  #omRpcClosed: Promise<void> | undefined;
  readonly #omRpcPort: number;
  readonly #security: MiniOmSecurity | undefined;
  readonly #credentials: ServerCredentials;
  readonly #ownsDir: boolean;
  /** OM HA mode: the nodes, their leader, and each node's server. */
  readonly #ha: { group: MiniOmHa; servers: Map<string, HaNodeServer> } | undefined;
  #closed = false;

  /** @internal use {@link startMiniOzoneCluster} */
  constructor(parts: {
    dir: string;
    ownsDir: boolean;
    om: MiniOm;
    omServer: Server | undefined;
    omPort: number;
    omRpcServer: HadoopRpcTestServer | undefined;
    omRpcPort: number;
    credentials: ServerCredentials;
    datanodes: MiniDatanode[];
    ratis: MiniRatisPipelines;
    caFile: string | undefined;
    security: MiniOmSecurity | undefined;
    ha?: { group: MiniOmHa; servers: Map<string, HaNodeServer> };
  }) {
    this.#security = parts.security;
    this.#ha = parts.ha;
    this.ratis = parts.ratis;
    this.dir = parts.dir;
    this.#ownsDir = parts.ownsDir;
    this.om = parts.om;
    this.#omServer = parts.omServer;
    this.#omPort = parts.omPort;
    this.#omRpcServer = parts.omRpcServer;
    this.#omRpcPort = parts.omRpcPort;
    this.#credentials = parts.credentials;
    this.datanodes = parts.datanodes;
    this.caFile = parts.caFile;
  }

  /** `host:port` of the OM's gRPC service (in HA mode: of the first OM node; use the service id). */
  get omAddress(): string {
    return `127.0.0.1:${this.#omPort}`;
  }

  /**
   * `host:port` of the OM's Hadoop RPC server (`OzoneManagerProtocol`, as Ozone's port 9862); in HA
   * mode of the first OM node. A client reaches it with `ozone.om.transport.class` set to
   * `…Hadoop3OmTransportFactory` (a bare `host:port` is otherwise read as the gRPC address).
   */
  get omRpcAddress(): string {
    return `127.0.0.1:${this.#omRpcPort}`;
  }

  /** The OM service id in HA mode (`omHa`), else undefined. */
  get omServiceId(): string | undefined {
    return this.#ha?.group.serviceId;
  }

  /** The OM nodes: id, gRPC address and Hadoop RPC address each (one, `om1`, without HA). */
  get omNodes(): Array<{
    /** The node id (`om1` for a single OM). */
    nodeId: string;
    /** The node's gRPC address. */
    address: string;
    /** The node's Hadoop RPC address. */
    rpcAddress: string;
  }> {
    if (!this.#ha) return [{ nodeId: 'om1', address: this.omAddress, rpcAddress: this.omRpcAddress }];
    return [...this.#ha.servers].map(([nodeId, s]) => ({
      nodeId,
      address: `127.0.0.1:${s.port}`,
      rpcAddress: `127.0.0.1:${s.rpcPort}`,
    }));
  }

  /** The OM node that leads now (HA mode), or undefined while none does. */
  get omLeader(): string | undefined {
    return this.#ha ? this.#ha.group.leader : 'om1';
  }

  /**
   * The OM HA configuration a client needs, under Ozone's keys: `ozone.om.service.ids`,
   * `ozone.om.nodes.<id>`, and per node `ozone.om.address.<id>.<node>` (host and Hadoop RPC
   * port) and `ozone.om.grpc.port.<id>.<node>`. Empty without HA. Without
   * `ozone.om.transport.class` a client reaches them over Hadoop RPC, as Ozone's does.
   */
  get omClientProperties(): Record<string, string> {
    const ha = this.#ha;
    if (!ha) return {};
    const sid = ha.group.serviceId;
    const properties: Record<string, string> = {
      'ozone.om.service.ids': sid,
      [`ozone.om.nodes.${sid}`]: ha.group.nodeIds.join(','),
    };
    for (const [nodeId, s] of ha.servers) {
      properties[`ozone.om.address.${sid}.${nodeId}`] = `127.0.0.1:${s.rpcPort}`;
      properties[`ozone.om.grpc.port.${sid}.${nodeId}`] = String(s.port);
    }
    return properties;
  }

  /** The HA group (its refusal counters, leader readiness); throws without HA. */
  get omHa(): MiniOmHa {
    if (!this.#ha) throw new MiniClusterError('the cluster runs one OM (start it with omHa)');
    return this.#ha.group;
  }

  /** Makes another OM node the leader, as `ozone admin om transfer` would. */
  transferOmLeader(nodeId: string): void {
    this.omHa.transferLeader(nodeId);
  }

  /**
   * The datanode at index `which` (in {@link MiniOzoneCluster.datanodes} order) or with UUID `which`;
   * throws `MiniClusterError` when there is none.
   */
  datanode(which: number | string): MiniDatanode {
    const d =
      typeof which === 'number' ? this.datanodes[which] : this.datanodes.find((x) => x.uuid === which);
    if (!d) throw new MiniClusterError(`no datanode ${which} in a cluster of ${this.datanodes.length}`);
    return d;
  }

  /** Per-datanode counters, in datanode order. */
  counters(): DatanodeCounters[] {
    return this.datanodes.map((d) => structuredClone(d.counters));
  }

  /** Sets every datanode's counters back to 0 (a test then measures one operation alone). */
  resetCounters(): void {
    for (const d of this.datanodes) {
      d.counters.bytesRead = 0;
      d.counters.bytesWritten = 0;
      d.counters.bytesStreamed = 0;
      d.counters.readBlockPieces = 0;
      d.counters.readBlockPastEnd = 0;
      d.counters.requests = 0;
      d.counters.byCommand = {};
      d.counters.shortCircuitRequests = 0;
      d.counters.shortCircuitFdsPassed = 0;
      d.counters.blockTokenRefusals = 0;
    }
  }

  /** Applies a fault to one datanode's next short-circuit requests on its domain socket. */
  injectShortCircuitFault(which: number | string, fault: ShortCircuitFault): void {
    this.datanode(which).injectShortCircuitFault(fault);
  }

  /** Applies a fault to one datanode's next matching requests. */
  injectFault(which: number | string, fault: DatanodeFault): void {
    this.datanode(which).injectFault(fault);
  }

  /**
   * Clears every fault: each datanode's (gRPC and short-circuit) and the OM's, and in HA mode
   * makes the leader ready again. Safe to call at any time, faults or none.
   */
  clearFaults(): void {
    for (const d of this.datanodes) d.clearFaults();
    this.om.clearFaults();
    this.#ha?.group.setLeaderReady(true);
  }

  /**
   * Stops the OM's gRPC server: connections drop, new ones are refused. Its state stays. In HA
   * mode, stops node `nodeId`; when it led, the next running node leads.
   */
  stopOm(nodeId?: string): void {
    if (this.#ha) {
      const s = this.#haServer(nodeId);
      s.server?.forceShutdown();
      s.server = undefined;
      s.rpcClosed = s.rpc?.close();
      s.rpc = undefined;
      this.#ha.group.stopped(nodeId as string);
      return;
    }
    this.#omServer?.forceShutdown();
    this.#omServer = undefined;
    this.#omRpcClosed = this.#omRpcServer?.close();
    this.#omRpcServer = undefined;
  }

  /** Serves the OM again on its old port, with the state it had (HA mode: node `nodeId`, a follower). */
  async startOm(nodeId?: string): Promise<void> {
    if (this.#closed) throw new MiniClusterError('the cluster is closed');
    if (this.#ha) {
      const s = this.#haServer(nodeId);
      if (s.server) return;
      const handler = this.#ha.group.handler(nodeId as string);
      s.server = (await serveOm(handler, this.#credentials, s.port)).server;
      await s.rpcClosed;
      s.rpc = await serveOmOverHadoopRpc(handler, s.rpcPort, this.#security);
      this.#ha.group.started(nodeId as string);
      return;
    }
    if (this.#omServer) return;
    this.#omServer = await serveOm(this.om.handle, this.#credentials, this.#omPort).then((r) => r.server);
    await this.#omRpcClosed;
    this.#omRpcServer = await serveOmOverHadoopRpc(this.om.handle, this.#omRpcPort, this.#security);
  }

  #haServer(nodeId: string | undefined): HaNodeServer {
    const s = nodeId === undefined ? undefined : this.#ha?.servers.get(nodeId);
    if (!s)
      throw new MiniClusterError(
        `name an OM node of ${this.#ha?.group.serviceId} (${this.#ha?.group.nodeIds.join(', ')}), got ${nodeId}`,
      );
    return s;
  }

  /**
   * Stops a datanode gracefully: its RATIS port first (it leaves its pipelines' Raft groups), then
   * its gRPC server, which gives calls in flight up to 5 s before it cuts them. Its data stays;
   * {@link MiniOzoneCluster.restartDatanode} brings it back.
   */
  async stopDatanode(which: number | string): Promise<void> {
    const d = this.datanode(which);
    await this.ratis.stopDatanode(d.uuid);
    await d.stop();
  }

  /** Stops a datanode at once, its RATIS port too (every open stream is cut). */
  killDatanode(which: number | string): void {
    const d = this.datanode(which);
    d.kill();
    void this.ratis.stopDatanode(d.uuid);
  }

  /** Starts a stopped or killed datanode again on its old port, with its data. */
  async restartDatanode(which: number | string): Promise<void> {
    const d = this.datanode(which);
    d.kill();
    await this.ratis.stopDatanode(d.uuid);
    await d.start(d.port);
    await this.ratis.restartDatanode(d.uuid);
  }

  /**
   * Holds every request of the datanode's standalone gRPC port, new and in flight, until
   * {@link MiniOzoneCluster.resumeDatanode}: a datanode that stopped answering but keeps its
   * connections. Its RATIS port goes on serving.
   */
  pauseDatanode(which: number | string): void {
    this.datanode(which).pause();
  }

  /** Releases the requests a {@link MiniOzoneCluster.pauseDatanode} held; does nothing when not paused. */
  resumeDatanode(which: number | string): void {
    this.datanode(which).resume();
  }

  /**
   * Flips `length` bytes of a committed key's data at `offsetInKey` on one replica (the
   * datanode of that index in the block's pipeline order: 0 is the one tried first).
   */
  async corruptKeyReplica(
    volume: string,
    bucket: string,
    key: string,
    offsetInKey: number,
    options: { replica?: number; length?: number } = {},
  ): Promise<string> {
    const block = this.om.blockAt(volume, bucket, key, offsetInKey);
    const uuid = block.datanodes[options.replica ?? 0];
    if (!uuid) throw new MiniClusterError(`block has no replica ${options.replica ?? 0}`);
    await this.datanode(uuid).corruptBlock(
      BigInt(block.containerId),
      BigInt(block.localId),
      offsetInKey - block.offset,
      options.length ?? 1,
    );
    return uuid;
  }

  /** Stops every server; removes the directory when the cluster created it. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const d of this.datanodes) d.kill();
    await this.ratis.close();
    if (this.#ha) for (const nodeId of this.#ha.servers.keys()) this.stopOm(nodeId);
    else this.stopOm();
    await Promise.all([
      this.#omRpcClosed,
      ...[...(this.#ha?.servers.values() ?? [])].map((s) => s.rpcClosed),
    ]);
    await this.om.encryption?.close();
    if (this.#ownsDir) await rm(this.dir, { recursive: true, force: true });
  }

  /** {@link MiniOzoneCluster.close}, for `await using`. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}

/** Starts an embedded mini Ozone cluster. */
export async function startMiniOzoneCluster(
  options: MiniOzoneClusterOptions = {},
): Promise<MiniOzoneCluster> {
  const count = options.datanodes ?? DEFAULT_MINI_OZONE_CLUSTER_OPTIONS.datanodes;
  if (!Number.isInteger(count) || count < 1 || count > 64)
    throw new MiniClusterError(`datanodes must be an integer from 1 to 64, got ${count}`);
  const omHa = options.omHa ?? DEFAULT_MINI_OZONE_CLUSTER_OPTIONS.omHa;
  if (!Number.isInteger(omHa) || omHa < 0 || omHa > 9 || omHa === 1)
    throw new MiniClusterError(`omHa must be 0 (one OM) or an integer from 2 to 9, got ${omHa}`);
  const omServiceId = options.omServiceId ?? DEFAULT_MINI_OZONE_CLUSTER_OPTIONS.omServiceId;
  if (!/^[A-Za-z0-9][A-Za-z0-9-]*$/.test(omServiceId))
    throw new MiniClusterError(
      `omServiceId must be letters, digits and dashes, got ${JSON.stringify(omServiceId)}`,
    );
  const { [KEY_PROVIDER_PATH]: keyProviderPath, ...omSettings } = options.omConfiguration ?? {};
  const hsyncSettings = miniOmHsyncSettings(omSettings);
  const encryption = keyProviderPath?.trim()
    ? new MiniOmEncryption(keyProviderPath, {
        user: DEFAULT_MINI_OZONE_CLUSTER_OPTIONS.omKmsUser,
        ...options.omKms,
      })
    : undefined;
  const ownsDir = options.dir === undefined;
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'fastpath-mini-ozone-'));
  const started: MiniDatanode[] = [];
  let ratis: MiniRatisPipelines | undefined;
  const haServers = new Map<string, HaNodeServer>();
  let omRpcServer: HadoopRpcTestServer | undefined;
  const security = options.security === undefined ? undefined : new MiniOmSecurity(options.security);
  const blockTokens =
    options.security?.blockTokens === true
      ? new MiniBlockTokens(options.security.blockTokenLifetimeMs)
      : undefined;
  try {
    let credentials = ServerCredentials.createInsecure();
    let caFile: string | undefined;
    let caPem: string | undefined;
    if (options.tls) {
      const tls = await createTlsFixture(join(dir, 'tls'));
      credentials = ServerCredentials.createSsl(
        tls.rootCert,
        [{ cert_chain: tls.certChain, private_key: tls.privateKey }],
        false,
      );
      caFile = tls.caFile;
      caPem = tls.rootCert.toString('utf8');
    }
    for (let i = 0; i < count; i++) {
      const d = new MiniDatanode({
        dir: join(dir, `datanode-${i}`),
        credentials,
        ...(blockTokens === undefined ? {} : { blockTokens }),
        ...(options.domainSocketPath !== undefined ? { domainSocketPath: options.domainSocketPath } : {}),
      });
      await d.start(0);
      started.push(d);
    }
    const pipelines = await MiniRatisPipelines.start(started, {
      watchTimeoutMs: options.ratisWatchTimeoutMs ?? DEFAULT_MINI_OZONE_CLUSTER_OPTIONS.ratisWatchTimeoutMs,
      credentials,
      dataStream: options.dataStream ?? DEFAULT_MINI_OZONE_CLUSTER_OPTIONS.dataStream,
    });
    ratis = pipelines;
    const om = new MiniOm(
      join(dir),
      () =>
        started.map((d) => ({
          uuid: d.uuid,
          port: d.port,
          ratisPort: pipelines.ratisPort(d.uuid),
          dataStreamPort: (pipelineId: string) => pipelines.dataStreamPort(pipelineId, d.uuid),
        })),
      hsyncSettings,
      encryption,
      blockTokens,
      caPem,
    );
    let ha: { group: MiniOmHa; servers: Map<string, HaNodeServer> } | undefined;
    if (omHa > 0) {
      // Ozone's MiniOzoneHAClusterImpl names its OM nodes so.
      const group = new MiniOmHa(
        omServiceId,
        Array.from({ length: omHa }, (_, i) => `omNode-${i + 1}`),
        om,
      );
      for (const nodeId of group.nodeIds) {
        const { server, port } = await serveOm(group.handler(nodeId), credentials, 0);
        const node: HaNodeServer = { server, port, rpc: undefined, rpcPort: 0 };
        haServers.set(nodeId, node);
        node.rpc = await serveOmOverHadoopRpc(group.handler(nodeId), 0, security);
        node.rpcPort = node.rpc.port;
      }
      ha = { group, servers: haServers };
    }
    // The last step that can fail; serveOm cleans up after itself. In HA mode the first node.
    const first = haServers.values().next().value;
    if (!ha) omRpcServer = await serveOmOverHadoopRpc(om.handle, options.omRpcPort ?? 0, security);
    const served = first
      ? { server: undefined, port: first.port }
      : await serveOm(om.handle, credentials, options.omPort ?? 0);
    return new MiniOzoneCluster({
      ...(ha ? { ha } : {}),
      dir,
      ownsDir,
      om,
      omServer: served.server,
      omPort: served.port,
      omRpcServer,
      omRpcPort: first ? first.rpcPort : (omRpcServer as HadoopRpcTestServer).port,
      credentials,
      datanodes: started,
      ratis: pipelines,
      caFile,
      security,
    });
  } catch (err) {
    for (const s of haServers.values()) {
      s.server?.forceShutdown();
      await s.rpc?.close();
    }
    await omRpcServer?.close();
    for (const d of started) d.kill();
    await ratis?.close();
    await encryption?.close();
    if (ownsDir) rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}

/** An OM's gRPC server on 127.0.0.1:`port` (0: a free one). */
async function serveOm(
  submitRequest: MiniOm['handle'],
  credentials: ServerCredentials,
  port: number,
): Promise<{ server: Server; port: number }> {
  // The OM's own limit (ozone.om.grpc.maximum.response.length, 128 MB).
  return serveRawGrpc(omServiceDefinition, { submitRequest }, port, credentials, 128 * 1024 * 1024);
}
