import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkInteger } from '@fastpath/core';
import { runProcess, type ProcessResult } from '@fastpath/jvm-fixture';
import { HadoopClientError } from './hadoop-errors.js';
import { HADOOP_JAVA_17_OPENS } from './java-options.js';
import type { HadoopInstallation } from './prepare-hadoop.js';

const DRIVER_CLASS = 'dev.fastpath.hadoop.HadoopClientDriver';
const KEY_SHELL_CLASS = 'org.apache.hadoop.crypto.key.KeyShell';

/** An EEK as the client driver speaks it (URL-safe base64 without padding). */
export interface DriverEek {
  readonly keyName: string;
  readonly versionName: string;
  readonly iv: string;
  readonly material: string;
  readonly innerVersionName?: string;
}

/**
 * One request to Hadoop's own KMS client. `user` is the simple-auth caller (default `client`);
 * `token` (a Token URL string) makes the call authenticate with that delegation token instead.
 * `writeToken` / `readToken` use Hadoop's Token and identifier classes without a server.
 */
export type HadoopClientRequest = {
  readonly user?: string;
  readonly token?: string;
  /** With Kerberos (`options.kerberos`): act for this user as a proxy of the login user. */
  readonly doAs?: string;
} & (
  | {
      op: 'createKey';
      name: string;
      cipher?: string;
      length?: number;
      description?: string;
      material?: string;
    }
  | {
      op:
        | 'rollNewVersion'
        | 'deleteKey'
        | 'invalidateCache'
        | 'getMetadata'
        | 'getCurrentKey'
        | 'getKeyVersions';
      name: string;
    }
  | { op: 'getKeys' }
  | { op: 'getKeyVersion'; versionName: string }
  | { op: 'generateEek'; name: string; num?: number }
  | { op: 'decryptEek' | 'reencryptEek'; eek: DriverEek }
  | { op: 'reencryptEeks'; eeks: readonly DriverEek[] }
  | { op: 'getDelegationToken'; renewer?: string }
  | { op: 'renewDelegationToken' | 'cancelDelegationToken'; urlString: string }
  | { op: 'readToken'; urlString: string }
  /** Hadoop's `Credentials.writeTokenStorageFile` of these tokens (URL strings) by alias, without a server. */
  | {
      op: 'writeCredentials';
      path: string;
      format?: 'writable' | 'protobuf';
      tokens: ReadonlyArray<{ alias: string; urlString: string }>;
    }
  /** Hadoop's `Credentials.readTokenStorageFile`: answers `tokens`, `{ alias, urlString }` each. */
  | { op: 'readCredentials'; path: string }
  /**
   * AES/CTR/NoPadding by Hadoop's JceAesCtrCryptoCodec, without a server: `calculateIV` for each
   * counter (decimal, unsigned 64-bit), CryptoOutputStream over `plaintext`, and CryptoInputStream
   * positional reads of that ciphertext. Answers `codec`, `calculatedIvs`, `ciphertext`, `reads`.
   */
  | {
      op: 'ctrCodec';
      key: string;
      iv: string;
      plaintext: string;
      counters?: readonly string[];
      reads?: ReadonlyArray<{ position: number; length: number }>;
      bufferSize?: number;
    }
  /** Waits in the JVM until `afterPreviousMs` have passed since the previous answer (a cookie's expiry). */
  | { op: 'waitUntil'; afterPreviousMs: number }
  | {
      op: 'writeToken';
      owner: string;
      renewer: string;
      realUser: string;
      issueDate: string;
      maxDate: string;
      sequenceNumber: number;
      masterKeyId: number;
      password: string;
      kind?: string;
      service?: string;
    }
);

/** Hadoop's answer: the op's fields with `ok: true`, or the exception Hadoop's client threw. */
export type HadoopClientAnswer =
  | ({ readonly ok: true } & Record<string, unknown>)
  | {
      readonly ok: false;
      /** Fully qualified class name of the exception, e.g. `java.io.IOException`. */
      readonly exception: string;
      readonly message: string | null;
      /** `class: message` of each cause. */
      readonly causes: readonly string[];
    };

/** Options of {@link runHadoopClient} and {@link runKeyShell}. */
export interface HadoopClientOptions {
  /** Upper bound for the JVM. Default 300000 ms. */
  timeoutMs?: number;
  /** Extra JVM flags, e.g. a KDC's `-Djava.security.krb5.conf=…`. Default: none. */
  javaOptions?: readonly string[];
}

/** Options of {@link runHadoopClient}. */
export interface HadoopKerberosClientOptions extends HadoopClientOptions {
  /**
   * Kerberos (`hadoop.security.authentication=kerberos`): the driver logs in with
   * `UserGroupInformation.loginUserFromKeytab(principal, keytab)` and makes every call without
   * a `token` as that user (or as a proxy of it, with `doAs`). Default: simple authentication.
   */
  kerberos?: { principal: string; keytab: string };
}

/** Options of {@link runKeyShell}. */
export interface KeyShellOptions extends HadoopClientOptions {
  /**
   * Kerberos: KeyShell logs in from this ticket cache (`KRB5CCNAME`, e.g. from a keytab with
   * kinit) with `hadoop.security.authentication=kerberos`. Default: simple authentication.
   */
  kerberos?: { ccache: string };
}

const DEFAULT_TIMEOUT_MS = 300_000;

function clientJvmArgs(
  installation: HadoopInstallation,
  extraClasspath: readonly string[],
  javaOptions: readonly string[] = [],
  jvm: { heapMb?: number; fullJit?: boolean } = {},
): string[] {
  return [
    ...javaOptions,
    `-Xmx${jvm.heapMb ?? 256}m`,
    '-XX:-UsePerfData',
    // A short-lived client: the first compiler tier starts fastest. Measurements want C2.
    ...(jvm.fullJit === true ? [] : ['-XX:TieredStopAtLevel=1']),
    ...HADOOP_JAVA_17_OPENS,
    '-cp',
    [...extraClasspath, ...installation.classpath].join(':'),
  ];
}

/**
 * Runs `requests` through Hadoop's own KMS client (`KMSClientProvider` from `KeyProviderFactory`,
 * `KeyProviderCryptoExtension`, the delegation-token extension) in one JVM, in order, against
 * `providerUri` (`kms://http@host:port/kms`); one answer per request.
 *
 * @throws HadoopClientError when the JVM fails without answering every request
 */
export async function runHadoopClient(
  installation: HadoopInstallation,
  providerUri: string,
  requests: readonly HadoopClientRequest[],
  options: HadoopKerberosClientOptions = {},
): Promise<HadoopClientAnswer[]> {
  const timeoutMs = checkInteger('timeoutMs', options.timeoutMs ?? DEFAULT_TIMEOUT_MS, 1);
  const kerberos =
    options.kerberos === undefined
      ? []
      : [
          `-Dfastpath.kerberos.principal=${options.kerberos.principal}`,
          `-Dfastpath.kerberos.keytab=${options.kerberos.keytab}`,
        ];
  return runJsonLinesDriver<HadoopClientAnswer>(
    installation,
    {
      className: DRIVER_CLASS,
      args: [providerUri],
      javaOptions: [...(options.javaOptions ?? []), ...kerberos],
    },
    requests,
    timeoutMs,
  );
}

/**
 * Runs one of the fixture's Java drivers (`java/`): one JSON request per stdin line, one JSON
 * answer per stdout line, all in one JVM.
 *
 * @throws HadoopClientError when the JVM fails without answering every request
 */
export async function runJsonLinesDriver<A>(
  installation: HadoopInstallation,
  driver: {
    className: string;
    args?: readonly string[];
    javaOptions?: readonly string[];
    /** JVM heap; default 256 MiB. */
    heapMb?: number;
    /** Both JIT tiers (for measurements); default: the first tier only, which starts fastest. */
    fullJit?: boolean;
  },
  requests: readonly unknown[],
  timeoutMs: number,
): Promise<A[]> {
  const result = await runProcess(
    installation.javaPath,
    [
      ...clientJvmArgs(installation, [installation.driverClassesDir], driver.javaOptions, {
        ...(driver.heapMb === undefined ? {} : { heapMb: driver.heapMb }),
        ...(driver.fullJit === undefined ? {} : { fullJit: driver.fullJit }),
      }),
      driver.className,
      ...(driver.args ?? []),
    ],
    { input: requests.map((r) => JSON.stringify(r)).join('\n') + '\n', timeoutMs },
  );
  const answers = result.stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as A);
  if (result.code !== 0 || answers.length !== requests.length) {
    throw new HadoopClientError(
      `the Java driver ${driver.className} answered ${answers.length} of ${requests.length} requests (exit ${String(result.code)})`,
      tail(result),
    );
  }
  return answers;
}

/**
 * Runs Hadoop's `KeyShell` (`hadoop key …`) with `args` against `providerUri` as `user`
 * (`HADOOP_USER_NAME`, simple authentication). Returns its exit status and output as they are:
 * KeyShell reports failures through both.
 */
export async function runKeyShell(
  installation: HadoopInstallation,
  providerUri: string,
  args: readonly string[],
  user = 'client',
  options: KeyShellOptions = {},
): Promise<ProcessResult> {
  const timeoutMs = checkInteger('timeoutMs', options.timeoutMs ?? DEFAULT_TIMEOUT_MS, 1);
  if (options.kerberos === undefined) {
    return runProcess(
      installation.javaPath,
      [
        ...clientJvmArgs(installation, [], options.javaOptions),
        KEY_SHELL_CLASS,
        ...args,
        '-provider',
        providerUri,
      ],
      { env: { ...process.env, HADOOP_USER_NAME: user }, timeoutMs },
    );
  }
  // UserGroupInformation reads its authentication method from core-site.xml on the class path
  // when it first logs in, before KeyShell's own -D options apply.
  const confDir = await mkdtemp(join(tmpdir(), 'keyshell-conf-'));
  try {
    await writeFile(
      join(confDir, 'core-site.xml'),
      '<configuration><property><name>hadoop.security.authentication</name><value>kerberos</value></property></configuration>\n',
    );
    const env: NodeJS.ProcessEnv = { ...process.env, KRB5CCNAME: options.kerberos.ccache };
    delete env['HADOOP_USER_NAME'];
    return await runProcess(
      installation.javaPath,
      [
        ...clientJvmArgs(installation, [confDir], options.javaOptions),
        KEY_SHELL_CLASS,
        ...args,
        '-provider',
        providerUri,
      ],
      { env, timeoutMs },
    );
  } finally {
    await rm(confDir, { recursive: true, force: true });
  }
}

function tail(result: ProcessResult): string {
  return `${result.stdout}\n${result.stderr}`.trim().split('\n').slice(-30).join('\n');
}
