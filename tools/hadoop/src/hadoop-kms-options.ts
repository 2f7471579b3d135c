import { tmpdir } from 'node:os';
import { checkInteger, checkNonEmptyString, InvalidOptionError } from '@fastpath/core';

/** A ZooKeeper delegation-token store for the Hadoop KMS (`zk-dt-secret-manager.*`). */
export interface HadoopKmsZooKeeperOptions {
  /** `zkConnectionString`, e.g. a fixture's `connectString`. */
  connectString: string;
  /** `znodeWorkingPath`. Default `zkdtsm` (Hadoop's default). */
  workingPath?: string;
  /** `token.seqnum.batch.size`. Default: Hadoop's own default (100 in 3.4). */
  seqNumBatchSize?: number;
}

/** How to start a Hadoop KMS. */
export interface HadoopKmsOptions {
  /** Entries of kms-acls.xml, on top of {@link DEFAULT_HADOOP_KMS_ACLS} unless `aclDefaults` is false. */
  acls?: Readonly<Record<string, string>>;
  /** Start kms-acls.xml from {@link DEFAULT_HADOOP_KMS_ACLS}. Default `true`; `false` writes `acls` alone. */
  aclDefaults?: boolean;
  /** Extra entries of kms-site.xml (they override what the fixture writes). */
  site?: Readonly<Record<string, string>>;
  /** Extra entries of core-site.xml. */
  core?: Readonly<Record<string, string>>;
  /** Keep delegation tokens in ZooKeeper instead of memory. Default: memory. */
  zooKeeper?: HadoopKmsZooKeeperOptions;
  /** Cookie signing secret, written to a file (`signer.secret.provider=file`). Default: random per start. */
  signerSecret?: string;
  /** JVM heap in MiB. Default 256. */
  heapMb?: number;
  /** Extra JVM flags, e.g. a KDC's `-Djava.security.krb5.conf=…` for Kerberos mode. Default: none. */
  javaOptions?: readonly string[];
  /** Bound for the KMS to answer HTTP. Default 120000 ms (a loaded 2-core machine needs 5-30 s). */
  startTimeoutMs?: number;
  /** Bound for the exit after SIGTERM before SIGKILL. Default 15000 ms. */
  stopTimeoutMs?: number;
  /** Where the scratch directory is made. Default: the OS temporary directory. */
  baseDir?: string;
  /** New port attempts when another process took the chosen port. Default 3. */
  portRetries?: number;
}

/**
 * The kms-acls.xml the fixture starts from, as Hadoop ships it: every operation open to everyone
 * and default key ACLs `*`, so that keys can be created and used (with no key ACL at all Hadoop
 * refuses every key operation).
 */
export const DEFAULT_HADOOP_KMS_ACLS: Readonly<Record<string, string>> = Object.freeze({
  'default.key.acl.MANAGEMENT': '*',
  'default.key.acl.GENERATE_EEK': '*',
  'default.key.acl.DECRYPT_EEK': '*',
  'default.key.acl.READ': '*',
});

export const DEFAULT_HADOOP_KMS_OPTIONS = Object.freeze({
  heapMb: 256,
  startTimeoutMs: 120_000,
  stopTimeoutMs: 15_000,
  portRetries: 3,
  zkWorkingPath: 'zkdtsm',
});

export interface ResolvedHadoopKmsOptions {
  readonly acls: Readonly<Record<string, string>>;
  readonly aclDefaults: boolean;
  readonly site: Readonly<Record<string, string>>;
  readonly core: Readonly<Record<string, string>>;
  readonly zooKeeper:
    | (Required<Omit<HadoopKmsZooKeeperOptions, 'seqNumBatchSize'>> & {
        readonly seqNumBatchSize: number | undefined;
      })
    | undefined;
  readonly signerSecret: string | undefined;
  readonly heapMb: number;
  readonly javaOptions: readonly string[];
  readonly startTimeoutMs: number;
  readonly stopTimeoutMs: number;
  readonly baseDir: string;
  readonly portRetries: number;
}

export function resolveHadoopKmsOptions(options: HadoopKmsOptions): ResolvedHadoopKmsOptions {
  const zk = options.zooKeeper;
  const aclDefaults = options.aclDefaults ?? true;
  if (typeof aclDefaults !== 'boolean') {
    throw new InvalidOptionError('aclDefaults', `expected a boolean, got ${typeof aclDefaults}`);
  }
  return Object.freeze({
    acls: { ...(aclDefaults ? DEFAULT_HADOOP_KMS_ACLS : {}), ...checkStrings('acls', options.acls) },
    aclDefaults,
    site: checkStrings('site', options.site),
    core: checkStrings('core', options.core),
    zooKeeper:
      zk === undefined
        ? undefined
        : {
            connectString: checkNonEmptyString('zooKeeper.connectString', zk.connectString),
            workingPath: checkNonEmptyString(
              'zooKeeper.workingPath',
              zk.workingPath ?? DEFAULT_HADOOP_KMS_OPTIONS.zkWorkingPath,
            ),
            seqNumBatchSize:
              zk.seqNumBatchSize === undefined
                ? undefined
                : checkInteger('zooKeeper.seqNumBatchSize', zk.seqNumBatchSize, 1),
          },
    signerSecret:
      options.signerSecret === undefined
        ? undefined
        : checkNonEmptyString('signerSecret', options.signerSecret),
    heapMb: checkInteger('heapMb', options.heapMb ?? DEFAULT_HADOOP_KMS_OPTIONS.heapMb, 64, 65_536),
    javaOptions: Object.freeze([...(options.javaOptions ?? [])]),
    startTimeoutMs: checkInteger(
      'startTimeoutMs',
      options.startTimeoutMs ?? DEFAULT_HADOOP_KMS_OPTIONS.startTimeoutMs,
      1,
    ),
    stopTimeoutMs: checkInteger(
      'stopTimeoutMs',
      options.stopTimeoutMs ?? DEFAULT_HADOOP_KMS_OPTIONS.stopTimeoutMs,
      1,
    ),
    baseDir: checkNonEmptyString('baseDir', options.baseDir ?? tmpdir()),
    portRetries: checkInteger(
      'portRetries',
      options.portRetries ?? DEFAULT_HADOOP_KMS_OPTIONS.portRetries,
      0,
      100,
    ),
  });
}

function checkStrings(option: string, value: unknown): Readonly<Record<string, string>> {
  if (value === undefined) return {};
  if (typeof value !== 'object' || value === null) {
    throw new InvalidOptionError(option, `expected an object of strings, got ${typeof value}`);
  }
  for (const [key, entry] of Object.entries(value)) {
    if (typeof entry !== 'string')
      throw new InvalidOptionError(`${option}.${key}`, `expected a string, got ${typeof entry}`);
  }
  return { ...(value as Record<string, string>) };
}
