// The scenario registry, the one place a scenario is added. `all` runs them in this order; each
// name is a CLI argument and an Nx target (`npx nx run benchmarks:<name>`, a script of the same
// name in benchmarks/package.json); the table at the top of benchmarks/README.md lists them with
// their source and what they compare; its `summary` is its section of the combined report of
// `all` (the source's table, ours in the same layout, headline and goals). registry.test.ts
// fails when the scripts or the table differ from this list, and prints what they should be.
import type { ScenarioSummary } from '../all/scenario-summary.js';
import type { Scenario } from '../harness/index.js';
import { coldClientScenario } from './cold-client/cold-client-scenario.js';
import { coldClientSummary } from './cold-client/cold-client-summary.js';
import { ecCodecScenario } from './ec-codec/ec-codec-scenario.js';
import { ecCodecSummary } from './ec-codec/ec-codec-summary.js';
import { kmsHttpKerberosScenario } from './kms-http-kerberos/kms-http-kerberos-scenario.js';
import { kmsHttpKerberosSummary } from './kms-http-kerberos/kms-http-kerberos-summary.js';
import { kmsHttpScenario } from './kms-http/kms-http-scenario.js';
import { kmsHttpSummary } from './kms-http/kms-http-summary.js';
import { locksScenario } from './locks/locks-scenario.js';
import { locksSummary } from './locks/locks-summary.js';
import { ozoneMetaScenario } from './ozone-meta/ozone-meta-scenario.js';
import { ozoneMetaSummary } from './ozone-meta/ozone-meta-summary.js';
import { ozoneTdeScenario } from './ozone-tde/ozone-tde-scenario.js';
import { ozoneTdeSummary } from './ozone-tde/ozone-tde-summary.js';
import { ozoneReadScenario } from './ozone-read/ozone-read-scenario.js';
import { ozoneReadSummary } from './ozone-read/ozone-read-summary.js';
import { ozoneWriteScenario } from './ozone-write/ozone-write-scenario.js';
import { ozoneWriteSummary } from './ozone-write/ozone-write-summary.js';
import { ratisScenario } from './ratis/ratis-scenario.js';
import { ratisSummary } from './ratis/ratis-summary.js';
import { secureRandomScenario } from './secure-random/secure-random-scenario.js';
import { secureRandomSummary } from './secure-random/secure-random-summary.js';
import { tokenManagerScenario } from './token-manager/token-manager-scenario.js';
import { tokenManagerSummary } from './token-manager/token-manager-summary.js';

/** A scenario with what the benchmarks README says about it. */
export interface RegisteredScenario {
  readonly scenario: Scenario;
  /** The source document (a JIRA key), or `—` for one of fastpath's own. */
  readonly source: string;
  /** One line for the README table: what is compared against what. */
  readonly compares: string;
  /** Its section of the combined report of `all`, read from its results folder. */
  readonly summary: ScenarioSummary;
}

export const registry: readonly RegisteredScenario[] = [
  {
    scenario: locksScenario,
    source: '—',
    compares:
      'acquire/release of the core `ReadWriteLock` and `Mutex` against a bare async-mutex `Mutex` and no lock',
    summary: locksSummary,
  },
  {
    scenario: secureRandomScenario,
    source: 'HADOOP-16011',
    compares:
      "one connection's key and IV draw: the Hadoop-style device reader per op against Node's CSPRNG calls and the pooled CSPRNG, 1 and 10 threads",
    summary: secureRandomSummary,
  },
  {
    scenario: tokenManagerScenario,
    source: 'HADOOP-20045',
    compares:
      'in-process verification while tokens are created in ZooKeeper: global lock vs staged vs staged + coalesced',
    summary: tokenManagerSummary,
  },
  {
    scenario: kmsHttpScenario,
    source: 'HADOOP-20045',
    compares:
      "the end-to-end KMS matrix over HTTP: original vs fixed vs fixed + coalesced, per mix; Apache Hadoop's own KMS beside them in `all`",
    summary: kmsHttpSummary,
  },
  {
    scenario: kmsHttpKerberosScenario,
    source: '—',
    compares:
      "the KMS over HTTP with Kerberos (SPNEGO per creation, and the cookie) at 100:0 and 90:10: fastpath's original and fixed against Apache Hadoop's KMS in Kerberos mode, requests/s and server CPU per handshake",
    summary: kmsHttpKerberosSummary,
  },
  {
    scenario: ozoneReadScenario,
    source: 'HDDS-16783',
    compares:
      '64 KiB positional reads on shared streams: verify on vs off by the global setting vs off by `setVerifyChecksum(false)`, gRPC and short-circuit, 1 MiB and 16 KiB bytes per checksum',
    summary: ozoneReadSummary,
  },
  {
    scenario: coldClientScenario,
    source: 'HDDS-17357',
    compares:
      'a cold Ozone client over TLS, a fresh process per run: warm-up off vs its parts vs one bundled file vs a V8 code cache',
    summary: coldClientSummary,
  },
  {
    scenario: ratisScenario,
    source: '—',
    compares:
      "writes of 1 KiB, 64 KiB and 4 MiB to a real 3-peer Apache Ratis group: fastpath's Ratis client against Ratis's own `RaftClient.async()`, same window",
    summary: ratisSummary,
  },
  {
    scenario: ozoneWriteScenario,
    source: '—',
    compares:
      "key writes to RATIS/THREE pipelines, 1 writer × 256 MiB, 16 × 16 MiB, 16 × 64 KiB files: fastpath's client against Ozone's own Java client on a real cluster, every key read back",
    summary: ozoneWriteSummary,
  },
  {
    scenario: ecCodecScenario,
    source: '—',
    compares:
      "Reed-Solomon encode and decode (1 and 2 lost cells), rs-3-2 and rs-6-3, 1 MiB cells: fastpath's TypeScript kernel and ISA-L addon against hadoop-common's Java coder and ISA-L from C",
    summary: ecCodecSummary,
  },
  {
    scenario: ozoneTdeScenario,
    source: '—',
    compares:
      "an encrypted Ozone bucket, 16 clients opening and reading small files (a DECRYPT_EEK each) and writing new ones: fastpath-kms fixed and original against Apache Hadoop's KMS as the cluster's key provider; encrypted ÷ plain MiB/s of large reads, fastpath's client against Ozone's Java client",
    summary: ozoneTdeSummary,
  },
  {
    scenario: ozoneMetaScenario,
    source: '—',
    compares:
      "the OM-bound operations (create+commit of empty and 1-byte keys, lookup, getFileStatus, a listing of 1,000 keys, rename, delete), 16 workers: fastpath's client over Hadoop RPC and over gRPC against Ozone's own Java client, one OM and OM HA",
    summary: ozoneMetaSummary,
  },
];

export const scenarios: readonly Scenario[] = registry.map((entry) => entry.scenario);

/** The `benchmarks/package.json` script that is the Nx target of a scenario. */
export function scenarioScript(name: string): string {
  return `tsx --conditions development src/cli.ts ${name}`;
}

/** The README table row of a registered scenario, as cells. */
export function readmeRow(entry: RegisteredScenario): string[] {
  const { name } = entry.scenario;
  return [
    `\`${name}\``,
    entry.source,
    entry.compares,
    `[src/scenarios/${name}](src/scenarios/${name}/README.md)`,
  ];
}
