import { checkInteger, checkNonEmptyString, InvalidOptionError } from '@fastpath/core';
import zookeeper from 'node-zookeeper-client';
import type { ACL } from 'node-zookeeper-client';

// ZooKeeper's SASL authentication as its Java client does it: once a connection's session is
// established, the client sends `sasl` requests (opcode 102, a token each) and the server answers
// each with a token, until the client's mechanism is complete and, for GSSAPI, the server has
// sent its last answer (a null token). The server then knows the connection as the `sasl` id of
// the client's principal (after its `kerberos.remove{Host,Realm}FromPrincipal` rules), and checks
// ACLs against it. The id belongs to the connection, not to the session: every reconnection
// authenticates again. This package does the framing and the gating; the mechanism (GSSAPI on
// Kerberos) is given by the caller through the structural interfaces below.

/** What a mechanism is told about the server it authenticates to. */
export interface ZooKeeperSaslServer {
  /** `host:port` of the server, as the connect string names it. */
  readonly address: string;
  /** The host as the connect string names it. */
  readonly host: string;
  /** The server's client port. */
  readonly port: number;
  /** The service part of the server principal (`zookeeper`, the `serviceName` option). */
  readonly service: string;
  /**
   * The host part of the server principal, as ZooKeeper's Java client forms it: the canonical
   * (reverse-resolved) name of the server's address, lower-cased, or `host` itself when the address has
   * no name or `canonicalizeHostName` is false. The server principal is `<service>/<principalHost>`.
   */
  readonly principalHost: string;
}

/**
 * One authentication exchange of a client mechanism, for one connection. `@fastpath/hadoop-rpc`'s
 * `SaslMechanismSession` (from `createKerberosSaslMechanism`) has this shape.
 */
export interface ZooKeeperSaslSession {
  /** The first token sent (the mechanism's initial response); `undefined` sends an empty one. */
  initialResponse(): Promise<Uint8Array | undefined>;
  /** The answer to a server token; `undefined` when there is nothing to send. */
  evaluateChallenge(challenge: Uint8Array): Promise<Uint8Array | undefined>;
  /** Whether the client side of the exchange has reached its end. */
  readonly complete: boolean;
}

/** Starts one exchange per connection (a fresh one after every reconnection). */
export interface ZooKeeperSaslMechanism {
  /** Starts the exchange with `server`; a rejection fails the connection with `ERR_ZOOKEEPER_SASL`. */
  start(server: ZooKeeperSaslServer): Promise<ZooKeeperSaslSession> | ZooKeeperSaslSession;
}

/** The `sasl` option of `connectZooKeeper`. */
export interface ZooKeeperSaslOptions {
  /** The mechanism, e.g. Kerberos (GSSAPI) from `@fastpath/hadoop-rpc`. Required. */
  mechanism: ZooKeeperSaslMechanism;
  /**
   * The service part of the server principal (ZooKeeper's `zookeeper.sasl.client.username`).
   * Default `zookeeper`.
   */
  serviceName?: string;
  /**
   * Whether the host part of the server principal is the canonical name of the server's address
   * (ZooKeeper's `zookeeper.sasl.client.canonicalize.hostname`). Default `true`.
   */
  canonicalizeHostName?: boolean;
  /** Bound of one exchange (every round trip and the mechanism's work), in ms. Default 10 000. */
  timeoutMs?: number;
}

/** Defaults of {@link ZooKeeperSaslOptions}. */
export const DEFAULT_ZOOKEEPER_SASL_OPTIONS = Object.freeze({
  /** `zookeeper`, as ZooKeeper's Java client. */
  serviceName: 'zookeeper',
  /** `true`, as ZooKeeper's Java client. */
  canonicalizeHostName: true,
  /** 10 000 ms for a whole exchange (a KDC round trip and three to the server). */
  timeoutMs: 10_000,
});

/** The checked `sasl` option, defaults filled in. */
export interface ResolvedZooKeeperSaslOptions {
  readonly mechanism: ZooKeeperSaslMechanism;
  readonly serviceName: string;
  readonly canonicalizeHostName: boolean;
  readonly timeoutMs: number;
}

/** Checks the `sasl` option of `connectZooKeeper`. */
export function resolveZooKeeperSaslOptions(value: unknown): ResolvedZooKeeperSaslOptions {
  if (typeof value !== 'object' || value === null) {
    throw new InvalidOptionError(
      'sasl',
      'expected { mechanism, serviceName?, canonicalizeHostName?, timeoutMs? }',
    );
  }
  const options = value as ZooKeeperSaslOptions;
  const d = DEFAULT_ZOOKEEPER_SASL_OPTIONS;
  if (typeof options.mechanism?.start !== 'function') {
    throw new InvalidOptionError('sasl.mechanism', 'expected an object with a start(server) method');
  }
  const serviceName = checkNonEmptyString('sasl.serviceName', options.serviceName ?? d.serviceName);
  if (/[/@\s]/.test(serviceName)) {
    throw new InvalidOptionError('sasl.serviceName', 'must not contain "/", "@" or spaces');
  }
  const canonicalizeHostName = options.canonicalizeHostName ?? d.canonicalizeHostName;
  if (typeof canonicalizeHostName !== 'boolean') {
    throw new InvalidOptionError('sasl.canonicalizeHostName', 'expected a boolean');
  }
  return Object.freeze({
    mechanism: options.mechanism,
    serviceName,
    canonicalizeHostName,
    timeoutMs: checkInteger('sasl.timeoutMs', options.timeoutMs ?? d.timeoutMs, 1, 600_000),
  });
}

/**
 * The one ACL Hadoop gives every znode it creates when it authenticates to ZooKeeper with SASL
 * (`ZookeeperClient.SASLOwnerACLProvider`, used by both the signer secret provider and the
 * delegation-token secret manager): all permissions to `sasl:<first component of the principal>`,
 * e.g. `sasl:kms` for `kms/host.example.com@EXAMPLE.COM`. The server must name authenticated
 * connections the same way (`kerberos.removeHostFromPrincipal` and `removeRealmFromPrincipal`).
 *
 * @example
 * ```ts
 * await zkCreate(client, '/app', 'x', zookeeper.CreateMode.PERSISTENT, saslOwnerAcl('kms/host@EXAMPLE.COM'));
 * ```
 */
export function saslOwnerAcl(principal: string): ACL[] {
  const owner = checkNonEmptyString('principal', principal).split(/[/@]/)[0] ?? '';
  if (owner === '') throw new InvalidOptionError('principal', `no first component in "${principal}"`);
  return [new zookeeper.ACL(zookeeper.Permission.ALL, new zookeeper.Id('sasl', owner))];
}
