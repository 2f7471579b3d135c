import { Redacted, systemClock, type Clock, type MetricsRegistry } from '@fastpath/core';
import {
  closeZooKeeperClient,
  connectZooKeeper,
  watchReconnectStall,
  zkCreate,
  zkGetData,
  zkMkdirp,
  saslOwnerAcl,
  zkSetData,
  ZooKeeperConnectTimeoutError,
  ZooKeeperOperationError,
  ZooKeeperSaslError,
  type ZooKeeperSaslOptions,
} from '@fastpath/zookeeper-client';
import type { ACL, Client } from 'node-zookeeper-client';
import { zooKeeperKerberos } from '../kerberos/zookeeper-kerberos.js';
import type { ZkSaslSettings } from '../kerberos/zookeeper-sasl-settings.js';
import { KmsSignerSecretsError } from '../../kms-errors.js';
import type { KmsLogger } from '../kms-logger.js';
import { randomSecret, type SignerSecretSource } from './signer-secrets.js';
import { decodeZkSignerData, encodeZkSignerData, type ZkSignerData } from './zk-signer-data.js';

/** Options of {@link ZkSignerSecrets.start}. */
export interface ZkSignerSecretsOptions {
  /** ZooKeeper servers, `host:port,…`. */
  connectionString: string;
  /** The znode of the secrets (absolute). */
  path: string;
  /** The rollover interval, ms: Hadoop's `token.validity` × 1000. */
  rolloverMs: number;
  /** Bound of one connection attempt and of one ZooKeeper call, ms. */
  connectionTimeoutMs: number;
  /** Session timeout asked for, ms; a lost connection not back within it gets a new session. */
  sessionTimeoutMs: number;
  /** Connection attempts at start. Default 3. */
  connectAttempts?: number | undefined;
  /**
   * Kerberos to ZooKeeper (`auth.type=sasl`): every connection authenticates first, and the
   * znodes created are for `sasl:<first component of the principal>` only. Default: none.
   */
  sasl?: ZkSaslSettings | undefined;
  metrics: MetricsRegistry;
  logger: KmsLogger;
  clock?: Clock | undefined;
}

const ZK_NODE_EXISTS = 'NODE_EXISTS';
const ZK_BAD_VERSION = 'BAD_VERSION';
const SETTING = 'hadoop.kms.authentication.signer.secret.provider.zookeeper.connection.string';
const SASL_SETTINGS =
  'hadoop.kms.authentication.signer.secret.provider.zookeeper.kerberos.keytab and .kerberos.principal';

/** How the client authenticates and what the znodes it creates are protected with. */
interface ZkAccess {
  /** The `sasl` option of every connection; `undefined` for none. */
  readonly sasl: ZooKeeperSaslOptions | undefined;
  /** The ACL of the znodes created; `undefined`: open to everyone (Hadoop's `none`). */
  readonly acl: ACL[] | undefined;
}

function accessOf(sasl: ZkSaslSettings | undefined): ZkAccess {
  if (sasl === undefined) return { sasl: undefined, acl: undefined };
  // One mechanism for the provider's life: it holds the login from the keytab.
  return { sasl: zooKeeperKerberos(sasl), acl: saslOwnerAcl(sasl.principal) };
}

/**
 * Cookie signer secrets shared by a fleet through one znode, as Hadoop's `ZKSignerSecretProvider`
 * (over `RolloverSignerSecretProvider`) shares them, so that fastpath-kms and Hadoop's KMS can
 * serve behind one load balancer and honour each other's `hadoop.auth` cookies:
 *
 * - The znode holds the next, current and previous secrets and the next rollover time
 *   (`ZkSignerData`). The first instance creates it; every later one adopts what it holds and
 *   rolls on the fleet's schedule.
 * - Every `rolloverMs` each instance rolls by itself, with no ZooKeeper call on the way: the
 *   next secret (read at the previous rollover) becomes current and the current one previous.
 *   Then it proposes a new next secret with a compare-and-set on the znode version it last read:
 *   the first to write wins, the others' writes fail, and all read the winner's next secret.
 * - Current and previous both verify; a cookie signed with an older secret is refused.
 *
 * Beyond Hadoop: an instance that finds the znode's current secret differs from its own (it
 * missed rollovers while away from ZooKeeper) adopts the znode's secrets, where Hadoop's would
 * stay apart from the fleet until restarted. An instance that loses ZooKeeper keeps the secrets
 * it has: it rolls once more to the next secret the fleet agreed on, then keeps current and
 * previous as they are (a secret of its own would be unknown to the fleet) until ZooKeeper is
 * back, and says so in `kms_signer_secrets_zookeeper_connected` and its log.
 */
export class ZkSignerSecrets implements SignerSecretSource {
  readonly #o: ZkSignerSecretsOptions;
  readonly #access: ZkAccess;
  readonly #clock: Clock;
  #current: Redacted<Buffer>;
  #previous: Redacted<Buffer> | undefined;
  /** The fleet's next secret, once read; `undefined` once used and not yet read again. */
  #next: Buffer | undefined;
  #zkVersion = -1;
  #nextRolloverMs: number;
  #client: Client | undefined;
  #connected = false;
  /** Set when the connection was lost, until it is back (for the log). */
  #lost = false;
  /** Set by a rollover made while ZooKeeper was away, until a read of the znode settles it. */
  #rolledWhileAway = false;
  #closed = false;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #stopStallWatch: (() => void) | undefined;
  #reconnecting: Promise<void> | undefined;
  /** The ZooKeeper work in progress (a rollover's write and read, a resync); one at a time. */
  #work: Promise<void> = Promise.resolve();
  readonly #connectedGauge;
  readonly #rollovers;

  private constructor(
    options: ZkSignerSecretsOptions,
    access: ZkAccess,
    data: ZkSignerData,
    client: Client,
    version: number,
  ) {
    this.#o = options;
    this.#access = access;
    this.#clock = options.clock ?? systemClock;
    this.#current = secretOf(data.current);
    this.#previous = data.previous === undefined ? undefined : secretOf(data.previous);
    this.#next = data.next;
    this.#zkVersion = version;
    this.#nextRolloverMs = this.#following(data.nextRolloverMs);
    this.#connectedGauge = options.metrics.gauge(
      'kms_signer_secrets_zookeeper_connected',
      'Whether the ZooKeeper signer secret provider is connected (1) or serves the secrets it has (0)',
    );
    this.#rollovers = options.metrics.counter(
      'kms_signer_secret_rollovers_total',
      'Cookie signer secret rollovers: wrote (this instance proposed the next secret), read (another had), kept (ZooKeeper away: secrets kept)',
      ['outcome'],
    );
    this.#install(client);
    this.#schedule();
  }

  /**
   * Connects, creates the znode if no instance has yet, adopts the fleet's secrets and starts
   * rolling. Rejects with `KmsSignerSecretsError` (one line) when ZooKeeper does not answer within
   * its bounds or the znode holds data this server cannot read.
   */
  static async start(options: ZkSignerSecretsOptions): Promise<ZkSignerSecrets> {
    const attempts = options.connectAttempts ?? 3;
    const clock = options.clock ?? systemClock;
    const access = accessOf(options.sasl);
    let client: Client;
    try {
      client = await connectZooKeeper(options.connectionString, {
        timeoutMs: options.connectionTimeoutMs,
        retries: attempts - 1,
        sessionTimeoutMs: options.sessionTimeoutMs,
        ...(access.sasl === undefined ? {} : { sasl: access.sasl }),
      });
    } catch (error) {
      if (error instanceof ZooKeeperSaslError) {
        throw new KmsSignerSecretsError(
          options.path,
          `${error.message}, so the cookie signer secrets cannot be shared: check ${SASL_SETTINGS}, the KDC and ZooKeeper's Kerberos setup`,
          { cause: error },
        );
      }
      if (!(error instanceof ZooKeeperConnectTimeoutError)) throw error;
      throw new KmsSignerSecretsError(
        options.path,
        `ZooKeeper at ${options.connectionString} did not answer (${attempts} attempts of ${options.connectionTimeoutMs} ms), ` +
          `so the cookie signer secrets cannot be shared: start ZooKeeper or correct ${SETTING}`,
        { cause: error },
      );
    }
    try {
      const bound = <T>(what: string, call: Promise<T>): Promise<T> =>
        withBound(call, options.connectionTimeoutMs, what);
      const parent = options.path.slice(0, options.path.lastIndexOf('/'));
      // Every instance tries to create the znode; one succeeds, the others adopt its secrets.
      const proposal = encodeZkSignerData({
        next: randomSecret().unwrap(),
        current: randomSecret().unwrap(),
        previous: undefined,
        nextRolloverMs: clock.now() + options.rolloverMs,
      });
      if (parent !== '') await bound(`creating ${parent}`, zkMkdirp(client, parent, access.acl));
      let created = true;
      await bound(
        `creating ${options.path}`,
        zkCreate(client, options.path, proposal, undefined, access.acl),
      ).catch((error) => {
        if (!(error instanceof ZooKeeperOperationError && error.zkName === ZK_NODE_EXISTS)) throw error;
        created = false;
      });
      const { data, stat } = await bound(`reading ${options.path}`, zkGetData(client, options.path));
      let decoded: ZkSignerData;
      try {
        decoded = decodeZkSignerData(data);
      } catch (error) {
        throw new KmsSignerSecretsError(options.path, `${(error as Error).message} (${options.path})`, {
          cause: error,
        });
      }
      options.logger.info(
        `cookie signer secrets shared through ZooKeeper ${options.connectionString}, ${options.path}` +
          ` (${created ? 'created' : 'joined'}; rolled every ${options.rolloverMs} ms)`,
      );
      return new ZkSignerSecrets(options, access, decoded, client, stat.version);
    } catch (error) {
      await closeZooKeeperClient(client, { timeoutMs: 0 });
      if (error instanceof KmsSignerSecretsError) throw error;
      throw new KmsSignerSecretsError(
        options.path,
        `cannot set up the cookie signer secrets in ZooKeeper ${options.connectionString}, ${options.path}: ${(error as Error).message}`,
        { cause: error },
      );
    }
  }

  current(): Redacted<Buffer> {
    return this.#current;
  }

  all(): readonly Redacted<Buffer>[] {
    return this.#previous === undefined ? [this.#current] : [this.#current, this.#previous];
  }

  /** Whether ZooKeeper is connected now. */
  get connected(): boolean {
    return this.#connected;
  }

  /** Stops rolling and closes the ZooKeeper session. Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#stopStallWatch?.();
    await this.#work;
    await this.#reconnecting;
    const client = this.#client;
    this.#client = undefined;
    this.#setConnected(false, undefined);
    if (client !== undefined) await closeZooKeeperClient(client, { timeoutMs: 2000 });
  }

  // -------------------------------------------------------------------------------------------
  // Rollover

  /** The first rollover time after now on the schedule of `fromMs` (a past one is moved on). */
  #following(fromMs: number): number {
    const now = this.#clock.now();
    if (fromMs > now) return fromMs;
    return fromMs + (Math.floor((now - fromMs) / this.#o.rolloverMs) + 1) * this.#o.rolloverMs;
  }

  #schedule(): void {
    if (this.#closed) return;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    const delayMs = Math.max(0, this.#nextRolloverMs - this.#clock.now());
    this.#timer = setTimeout(() => this.#roll(), delayMs);
    this.#timer.unref();
  }

  #roll(): void {
    if (this.#closed) return;
    const next = this.#next;
    if (next !== undefined) {
      this.#previous = this.#current;
      this.#current = secretOf(next);
      this.#next = undefined;
    }
    this.#nextRolloverMs = this.#following(this.#nextRolloverMs + this.#o.rolloverMs);
    this.#schedule();
    if (!this.#connected) {
      this.#rollovers.inc({ outcome: 'kept' });
      if (next !== undefined) this.#rolledWhileAway = true;
      this.#o.logger.warn(
        next === undefined
          ? 'cookie signer secrets not rolled: ZooKeeper is away and the next secret is unknown; the current and previous secrets stay in use'
          : 'cookie signer secrets rolled to the next secret the fleet agreed on; ZooKeeper is away, so the following rollover keeps them',
      );
      return;
    }
    this.#enqueue(async (client) => {
      if (next !== undefined) {
        // The first instance to write wins; the others read its next secret below.
        const won = await this.#propose(client);
        this.#rollovers.inc({ outcome: won ? 'wrote' : 'read' });
      }
      await this.#pull(client);
    });
  }

  /**
   * Reads the znode: the fleet's next secret and the version to propose against. Two cases mean
   * this instance fell out of step while ZooKeeper was away:
   * - the znode's next secret is this instance's current one: it rolled to the agreed secret but
   *   nobody could write the rollover; it writes it now (the proposal it could not make);
   * - otherwise a current secret not its own: the fleet rolled on (past its own rollover, when its
   *   secret is the znode's previous one, or without it); it adopts the znode's secrets and schedule.
   * A current secret its own after a rollover made while away is the fleet in step: an instance
   * that kept its connection (or came back first) wrote that rollover.
   */
  async #pull(client: Client): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      const { data, stat } = await this.#bound(`reading ${this.#o.path}`, zkGetData(client, this.#o.path));
      const decoded = decodeZkSignerData(data);
      this.#zkVersion = stat.version;
      const mine = this.#current.unwrap();
      if (decoded.current.equals(mine)) {
        this.#next = decoded.next;
        if (this.#rolledWhileAway) this.#rejoined(false);
        return;
      }
      if (decoded.next.equals(mine) && attempt === 0) {
        this.#rejoined(await this.#propose(client));
        continue;
      }
      this.#rolledWhileAway = false;
      // Its own secret as the znode's previous one: another instance wrote the rollover it made
      // while away and the fleet has rolled once more since; otherwise the fleet went on without it.
      const rolledPastMine = decoded.previous !== undefined && decoded.previous.equals(mine);
      this.#current = secretOf(decoded.current);
      this.#previous = decoded.previous === undefined ? undefined : secretOf(decoded.previous);
      this.#next = decoded.next;
      this.#nextRolloverMs = this.#following(decoded.nextRolloverMs);
      this.#schedule();
      this.#o.logger.info(
        rolledPastMine
          ? 'cookie signer secrets taken from ZooKeeper: the fleet rolled on past the rollover this server made while it was away'
          : 'cookie signer secrets taken from ZooKeeper: the fleet rolled while this server was away',
      );
      return;
    }
  }

  /** Says who wrote the rollover this instance made while ZooKeeper was away: itself or another. */
  #rejoined(won: boolean): void {
    this.#rolledWhileAway = false;
    this.#o.logger.info(
      `cookie signer secrets: ZooKeeper is back; the rollover made while it was away ${won ? 'written' : 'was written by another instance'}`,
    );
  }

  /**
   * Proposes this instance's current and previous secrets with a new next secret, conditioned on
   * the znode version last read. `false` when another instance wrote first.
   */
  async #propose(client: Client): Promise<boolean> {
    const proposal: ZkSignerData = {
      next: randomSecret().unwrap(),
      current: this.#current.unwrap(),
      previous: this.#previous?.unwrap(),
      nextRolloverMs: this.#nextRolloverMs,
    };
    return this.#bound(
      `writing ${this.#o.path}`,
      zkSetData(client, this.#o.path, encodeZkSignerData(proposal), this.#zkVersion),
    ).then(
      () => true,
      (error: unknown) => {
        if (error instanceof ZooKeeperOperationError && error.zkName === ZK_BAD_VERSION) return false;
        throw error;
      },
    );
  }

  /** Runs ZooKeeper work after the work before it; failures are logged, the secrets kept. */
  #enqueue(work: (client: Client) => Promise<void>): void {
    this.#work = this.#work.then(async () => {
      const client = this.#client;
      if (this.#closed || client === undefined || !this.#connected) return;
      try {
        await work(client);
      } catch (error) {
        this.#o.logger.error(
          'cookie signer secrets: a ZooKeeper call failed; the secrets this server has stay in use',
          error,
        );
      }
    });
  }

  /** A ZooKeeper call bounded by the connection timeout; past it the connection is taken for dead. */
  #bound<T>(what: string, call: Promise<T>): Promise<T> {
    const client = this.#client;
    return withBound(call, this.#o.connectionTimeoutMs, what).catch((error: unknown) => {
      if (error instanceof BoundExceeded && client !== undefined) this.#abandon(client, error.message);
      throw error;
    });
  }

  // -------------------------------------------------------------------------------------------
  // Connection

  #install(client: Client): void {
    this.#client = client;
    this.#setConnected(true, undefined);
    // node-zookeeper-client reconnects by itself but its handshake is unbounded; past the session
    // timeout the session is gone anyway, so a new client starts over.
    this.#stopStallWatch = watchReconnectStall(client, this.#o.sessionTimeoutMs, () => {
      if (this.#client === client && !this.#connected) {
        this.#abandon(client, 'the ZooKeeper connection did not come back within the session timeout');
      }
    });
    client.on('disconnected', () => {
      if (this.#client === client && !this.#closed)
        this.#setConnected(false, 'the ZooKeeper connection was lost');
    });
    client.on('connected', () => {
      if (this.#client !== client || this.#closed) return;
      this.#setConnected(true, undefined);
      this.#enqueue((c) => this.#pull(c));
    });
    client.on('expired', () => this.#abandon(client, 'the ZooKeeper session expired'));
    // A reconnection whose SASL exchange failed leaves the client closed for good: start over.
    client.on('authenticationFailed', () =>
      this.#abandon(client, 'SASL authentication to ZooKeeper failed on a reconnection'),
    );
  }

  #setConnected(connected: boolean, reason: string | undefined): void {
    const was = this.#connected;
    this.#connected = connected;
    this.#connectedGauge.set(connected ? 1 : 0);
    if (was && !connected && reason !== undefined) {
      this.#lost = true;
      this.#o.logger.warn(
        `cookie signer secrets: ${reason}; this server keeps the secrets it has (cookies it signs stay valid across the fleet until the fleet rolls twice)`,
      );
    } else if (!was && connected && this.#lost) {
      this.#lost = false;
      this.#o.logger.info('cookie signer secrets: ZooKeeper is back');
    }
  }

  #abandon(client: Client, reason: string): void {
    if (this.#client !== client) return;
    this.#client = undefined;
    this.#stopStallWatch?.();
    this.#setConnected(false, reason);
    void closeZooKeeperClient(client, { timeoutMs: 0 });
    if (this.#closed || this.#reconnecting !== undefined) return;
    this.#reconnecting = (async () => {
      let delayMs = 100;
      while (!this.#closed) {
        try {
          const fresh = await connectZooKeeper(this.#o.connectionString, {
            timeoutMs: this.#o.connectionTimeoutMs,
            retries: 0,
            sessionTimeoutMs: this.#o.sessionTimeoutMs,
            ...(this.#access.sasl === undefined ? {} : { sasl: this.#access.sasl }),
          });
          if (this.#closed) {
            await closeZooKeeperClient(fresh, { timeoutMs: 0 });
            return;
          }
          this.#install(fresh);
          this.#enqueue((c) => this.#pull(c));
          return;
        } catch (error) {
          if (!(error instanceof ZooKeeperConnectTimeoutError)) {
            this.#o.logger.error('cookie signer secrets: reconnecting to ZooKeeper failed', error);
          }
        }
        await new Promise((resolve) => setTimeout(resolve, delayMs).unref());
        delayMs = Math.min(5000, delayMs * 2);
      }
    })().finally(() => {
      this.#reconnecting = undefined;
    });
  }
}

function secretOf(bytes: Buffer): Redacted<Buffer> {
  return new Redacted(Buffer.from(bytes));
}

/** A ZooKeeper call not answered within its bound (the connection is then taken for dead). */
class BoundExceeded extends Error {}

function withBound<T>(call: Promise<T>, boundMs: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const bound = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new BoundExceeded(`no answer from ZooKeeper within ${boundMs} ms (${what})`)),
      boundMs,
    );
  });
  return Promise.race([call, bound]).finally(() => clearTimeout(timer));
}
