import { randomBytes } from 'node:crypto';
import { Redacted } from '@fastpath/core';
import { KmsClient } from '@fastpath/kms-client';
import { Token } from '@fastpath/token-manager';
import { BenchmarkCheckError } from '../../harness/index.js';

/** The user that creates the key and asks for tokens (simple authentication). */
export const BENCH_USER = 'bench';

export interface ExpectedServer {
  implementation: 'zookeeper' | 'memory';
  creationLocking: 'global' | 'staged';
  persistCoalescing: boolean;
  workers: number;
}

async function call(
  url: string,
  init: RequestInit = {},
): Promise<{ status: number; text: string; headers: Headers }> {
  const response = await fetch(url, { redirect: 'manual', ...init });
  return { status: response.status, text: await response.text(), headers: response.headers };
}

/**
 * Creates the key whose metadata the verification requests read. With `kerberos`, as the
 * benchmark user logged in from its ticket cache (KRB5CCNAME), through fastpath's client.
 */
export async function createBenchKey(origin: string, keyName: string, kerberos = false): Promise<void> {
  if (kerberos) {
    await using client = new KmsClient({ url: `${origin}/kms`, kerberos: true });
    await client.createKey(keyName, { cipher: 'AES/CTR/NoPadding', length: 128 });
    return;
  }
  const r = await call(`${origin}/kms/v1/keys?user.name=${BENCH_USER}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: keyName, cipher: 'AES/CTR/NoPadding', length: 128 }),
  });
  if (r.status !== 201)
    throw new BenchmarkCheckError(`creating the benchmark key answered ${r.status}: ${r.text.slice(0, 200)}`);
}

/** A delegation token for the verification requests, asked for with simple authentication (or Kerberos). */
export async function fetchToken(origin: string, kerberos = false): Promise<string> {
  if (kerberos) {
    await using client = new KmsClient({ url: `${origin}/kms`, kerberos: true });
    return (await client.getDelegationToken({ renewer: BENCH_USER })).toUrlString();
  }
  const r = await call(
    `${origin}/kms/v1/?op=GETDELEGATIONTOKEN&user.name=${BENCH_USER}&renewer=${BENCH_USER}`,
  );
  const url =
    r.status === 200
      ? (JSON.parse(r.text) as { Token?: { urlString?: string } }).Token?.urlString
      : undefined;
  if (typeof url !== 'string')
    throw new BenchmarkCheckError(`GETDELEGATIONTOKEN answered ${r.status}: ${r.text.slice(0, 200)}`);
  return url;
}

/**
 * The checks before a case is measured, so that every request takes the path it is meant to:
 * a real token authenticates, a forged one is refused with 403, an anonymous request with 401.
 * (Which server answers is checked by the case's server: build information or loaded jars.)
 * Returns the checks passed; throws on the first that fails.
 */
export async function preflight(origin: string, keyName: string, token: string): Promise<string[]> {
  const passed: string[] = [];
  const metadata = `${origin}/kms/v1/key/${encodeURIComponent(keyName)}/_metadata`;

  const ok = await call(metadata, { headers: { 'x-hadoop-delegation-token': token } });
  const name = ok.status === 200 ? (JSON.parse(ok.text) as { name?: string }).name : undefined;
  if (name !== keyName)
    throw new BenchmarkCheckError(
      `a real delegation token did not authenticate: ${ok.status} ${ok.text.slice(0, 200)}`,
    );
  passed.push('a real delegation token authenticates (200, metadata of the key)');

  // Same identifier, wrong password: well-formed, so it reaches verification and must fail there.
  const real = Token.fromUrlString(token);
  const forged = new Token({
    identifier: real.identifier,
    password: new Redacted(randomBytes(real.password.unwrap().length)),
    kind: real.kind,
    service: real.service,
  }).toUrlString();
  const bad = await call(metadata, { headers: { 'x-hadoop-delegation-token': forged } });
  if (bad.status !== 403)
    throw new BenchmarkCheckError(`a forged delegation token was answered ${bad.status}, not 403`);
  passed.push('a token with a wrong password is refused (403)');

  const anonymous = await call(metadata);
  if (anonymous.status !== 401)
    throw new BenchmarkCheckError(`an anonymous request was answered ${anonymous.status}, not 401`);
  passed.push('an unauthenticated request is refused (401)');
  return passed;
}

/**
 * Checks that a fastpath-kms process is the version the case is about, from its build
 * information (the analogue of the source's loaded-class fingerprint). Returns the check passed.
 */
export async function checkBuildInfo(origin: string, expected: ExpectedServer): Promise<string> {
  const info = JSON.parse((await call(`${origin}/build-info`)).text) as {
    workers?: number;
    tls?: boolean;
    tokenManager?: { implementation?: string; creationLocking?: string; persistCoalescing?: boolean | null };
  };
  const tm = info.tokenManager ?? {};
  const problems = [
    tm.implementation !== expected.implementation &&
      `token manager ${tm.implementation}, expected ${expected.implementation}`,
    tm.creationLocking !== expected.creationLocking &&
      `creation locking ${tm.creationLocking}, expected ${expected.creationLocking}`,
    Boolean(tm.persistCoalescing) !== expected.persistCoalescing &&
      `persist coalescing ${tm.persistCoalescing}, expected ${expected.persistCoalescing}`,
    info.workers !== expected.workers && `${info.workers} worker(s), expected ${expected.workers}`,
    info.tls !== false && 'TLS is on (the benchmark measures plain HTTP)',
  ].filter(Boolean);
  if (problems.length > 0)
    throw new BenchmarkCheckError(`the server is not the version this case measures: ${problems.join('; ')}`);
  return `build info: ${tm.implementation} token manager, creation locking ${tm.creationLocking}, persist coalescing ${tm.persistCoalescing}, ${info.workers} worker(s), plain HTTP`;
}
