// fastpath-kms for the comparisons: a separate process (its CLI, as an operator runs it) with a
// kms-site.xml and kms-acls.xml written the way the Hadoop fixture writes Hadoop's.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startKmsProcess, type KmsProcess } from '@fastpath/kms-server/testing';
import { hadoopConfigXml } from '../src/internal/hadoop-config-xml.js';

export interface FastpathKms {
  readonly process: KmsProcess;
  /** `http://127.0.0.1:<port>/kms`. */
  readonly url: string;
  /** `kms://http@127.0.0.1:<port>/kms`, for Hadoop's client. */
  readonly providerUri: string;
  close(): Promise<void>;
}

/** Starts fastpath-kms with `site` and `acls` (kms-acls.xml entries), on a free loopback port. */
export async function startFastpathKms(
  site: Readonly<Record<string, string>>,
  acls: Readonly<Record<string, string>>,
  env: Readonly<Record<string, string>> = {},
): Promise<FastpathKms> {
  const configDir = await mkdtemp(join(tmpdir(), 'fastpath-hadoop-interop-'));
  await writeFile(join(configDir, 'kms-site.xml'), hadoopConfigXml(site));
  await writeFile(join(configDir, 'kms-acls.xml'), hadoopConfigXml(acls));
  let process: KmsProcess;
  try {
    process = await startKmsProcess({ configDir, env, startTimeoutMs: 120_000 });
  } catch (err) {
    await rm(configDir, { recursive: true, force: true });
    throw err;
  }
  const port = new URL(process.url).port;
  return {
    process,
    url: `${process.url}/kms`,
    providerUri: `kms://http@127.0.0.1:${port}/kms`,
    async close() {
      await process.stop();
      await rm(configDir, { recursive: true, force: true });
    },
  };
}

/** kms-site.xml entries of the ZooKeeper token store under `workingPath`. */
export function zooKeeperTokenStore(connectString: string, workingPath: string): Record<string, string> {
  const zk = 'hadoop.kms.authentication.zk-dt-secret-manager.';
  return {
    [`${zk}enable`]: 'true',
    [`${zk}zkConnectionString`]: connectString,
    [`${zk}znodeWorkingPath`]: workingPath,
    [`${zk}zkAuthType`]: 'none',
  };
}
