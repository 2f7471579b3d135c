// One script of Hadoop client calls, run unchanged against a Hadoop KMS and against fastpath-kms,
// and the normalisation that makes their answers comparable side by side: values that differ by
// nature (random material, times, ports, token strings) are replaced by their kind.
import {
  runHadoopClient,
  type DriverEek,
  type HadoopClientAnswer,
  type HadoopClientRequest,
  type HadoopInstallation,
} from '@fastpath/hadoop-fixture';

/** kms-acls.xml entries of every server in the comparison: deletes are admin's alone. */
export const SCENARIO_ACLS: Readonly<Record<string, string>> = Object.freeze({
  'hadoop.kms.acl.DELETE': 'admin',
  'default.key.acl.MANAGEMENT': '*',
  'default.key.acl.GENERATE_EEK': '*',
  'default.key.acl.DECRYPT_EEK': '*',
  'default.key.acl.READ': '*',
});

/** One step of the scenario: its label, the request, and Hadoop's client answer, normalised. */
export interface ScenarioStep {
  readonly label: string;
  readonly request: HadoopClientRequest;
  readonly answer: unknown;
}

const FORGED_PASSWORD = 'AAAAAAAAAAAAAAAAAAAAAAAAAAA';
const STAND_IN_EEK: DriverEek = {
  keyName: 'k1',
  versionName: 'k1@0',
  iv: 'AAAAAAAAAAAAAAAAAAAAAA',
  material: 'AAAAAAAAAAAAAAAAAAAAAA',
};
// A well-formed kms-dt token no server issued (owner client, renewer client1).
const STAND_IN_TOKEN =
  'IQAGY2xpZW50B2NsaWVudDEAigGiMK6i2YoBolS7JtkDAhSffTQZRJge6e8iI__MIk9504jHcQZrbXMtZHQea21zOi8vaHR0cEAxMjcuMC4wLjE6MTk2MDAva21z';

/** The same identifier with another password, written by Hadoop's Token class. */
async function forge(installation: HadoopInstallation, providerUri: string, token: string): Promise<string> {
  const [read] = await runHadoopClient(installation, providerUri, [{ op: 'readToken', urlString: token }]);
  const fields = ok(read)['fields'] as Record<string, string | number>;
  const [written] = await runHadoopClient(installation, providerUri, [
    {
      op: 'writeToken',
      owner: String(fields['owner']),
      renewer: String(fields['renewer']),
      realUser: String(fields['realUser']),
      issueDate: String(fields['issueDate']),
      maxDate: String(fields['maxDate']),
      sequenceNumber: Number(fields['sequenceNumber']),
      masterKeyId: Number(fields['masterKeyId']),
      password: FORGED_PASSWORD,
      service: String(ok(read)['service']),
    },
  ]);
  return ok(written)['urlString'] as string;
}

/**
 * How Hadoop's client authenticates: `simple` (user.name, the client's own handshake first), or
 * `token`: every call carries a delegation token of its user, fetched beforehand over REST, as
 * the tasks of a job call the KMS.
 */
export type ScenarioAuth =
  { readonly mode: 'simple' } | { readonly mode: 'token'; readonly tokens: Readonly<Record<string, string>> };

/** The users the scenario acts as; `token` mode needs a token of each. */
export const SCENARIO_USERS: readonly string[] = ['client', 'client1', 'admin', 'nobody'];

/** `kms://http@host:port/kms` → `http://host:port/kms`. */
export function restUrl(providerUri: string): string {
  return providerUri.replace(/^kms:\/\/http@/, 'http://');
}

/** A delegation token of `user` from the server at `url` (`…/kms`), fetched over REST. */
export async function fetchToken(url: string, user: string, renewer = user): Promise<string> {
  const response = await fetch(`${url}/v1/?op=GETDELEGATIONTOKEN&renewer=${renewer}&user.name=${user}`);
  const body = (await response.json()) as { Token?: { urlString?: string } };
  const urlString = body.Token?.urlString;
  if (response.status !== 200 || urlString === undefined)
    throw new Error(`no token for ${user}: ${response.status}`);
  return urlString;
}

/**
 * Runs the scenario through Hadoop's KMS client against `providerUri`. Four JVM runs, because
 * later requests use values (EEKs, tokens) the earlier ones returned.
 */
export async function runClientScenario(
  installation: HadoopInstallation,
  providerUri: string,
  auth: ScenarioAuth = { mode: 'simple' },
): Promise<ScenarioStep[]> {
  const steps: ScenarioStep[] = [];
  const withAuth = (request: HadoopClientRequest): HadoopClientRequest =>
    auth.mode === 'simple' ||
    request.token !== undefined ||
    request.op === 'readToken' ||
    request.op === 'writeToken'
      ? request
      : { ...request, token: auth.tokens[request.user ?? 'client'] as string };
  const run = async (
    labelled: ReadonlyArray<[string, HadoopClientRequest]>,
  ): Promise<HadoopClientAnswer[]> => {
    const answers = await runHadoopClient(
      installation,
      providerUri,
      labelled.map(([, request]) => withAuth(request)),
    );
    labelled.forEach(([label, request], i) => steps.push({ label, request, answer: normalise(answers[i]) }));
    return answers;
  };

  const first = await run([
    [
      'create k1',
      { op: 'createKey', name: 'k1', cipher: 'AES/CTR/NoPadding', length: 128, description: 'l1' },
    ],
    ['create k1 again', { op: 'createKey', name: 'k1' }],
    ['list keys', { op: 'getKeys' }],
    ['metadata of k1', { op: 'getMetadata', name: 'k1' }],
    ['roll k1', { op: 'rollNewVersion', name: 'k1' }],
    ['invalidate cache of k1', { op: 'invalidateCache', name: 'k1' }],
    ['current version of k1', { op: 'getCurrentKey', name: 'k1' }],
    ['versions of k1', { op: 'getKeyVersions', name: 'k1' }],
    ['version k1@0', { op: 'getKeyVersion', versionName: 'k1@0' }],
    ['generate 2 EEKs of k1', { op: 'generateEek', name: 'k1', num: 2 }],
    ['token for renewer client1', { op: 'getDelegationToken', renewer: 'client1' }],
    // A missing key.
    ['missing: metadata', { op: 'getMetadata', name: 'missing' }],
    ['missing: current version', { op: 'getCurrentKey', name: 'missing' }],
    ['missing: versions', { op: 'getKeyVersions', name: 'missing' }],
    ['missing: version missing@0', { op: 'getKeyVersion', versionName: 'missing@0' }],
    ['missing: roll', { op: 'rollNewVersion', name: 'missing' }],
    ['missing: generate EEK', { op: 'generateEek', name: 'missing' }],
    ['missing: delete (as admin)', { op: 'deleteKey', name: 'missing', user: 'admin' }],
    // A denied ACL.
    ['denied: delete k1 as client', { op: 'deleteKey', name: 'k1' }],
  ]);
  // Later steps use what earlier ones returned; when an earlier step failed (a difference the
  // comparison reports), stand-ins keep the script going so that every step is compared.
  const eeks = first[9]?.ok === true ? (first[9]['eeks'] as DriverEek[]) : [STAND_IN_EEK, STAND_IN_EEK];
  const eek = eeks[0] ?? STAND_IN_EEK;
  // A token of the same server when Hadoop's client could not get one (fetched over REST).
  const token =
    first[10]?.ok === true
      ? (first[10]['urlString'] as string)
      : await fetchToken(restUrl(providerUri), 'client', 'client1').catch(() => STAND_IN_TOKEN);
  const forgedToken = await forge(installation, providerUri, token);

  await run([
    ['decrypt EEK', { op: 'decryptEek', eek }],
    ['reencrypt EEK', { op: 'reencryptEek', eek }],
    ['reencrypt batch of 2', { op: 'reencryptEeks', eeks }],
    [
      'missing: decrypt with version missing@0',
      { op: 'decryptEek', eek: { ...eek, keyName: 'missing', versionName: 'missing@0' } },
    ],
    ['decrypt with another key name', { op: 'decryptEek', eek: { ...eek, keyName: 'other' } }],
    ['call authenticated by the token', { op: 'getKeys', user: 'nobody', token }],
    ['renew as client1', { op: 'renewDelegationToken', urlString: token, user: 'client1' }],
    // Bad tokens.
    ['bad token: renew as client (not the renewer)', { op: 'renewDelegationToken', urlString: token }],
    [
      'bad token: forged password, renew',
      { op: 'renewDelegationToken', urlString: forgedToken, user: 'client1' },
    ],
    ['bad token: forged password, call', { op: 'getKeys', user: 'nobody', token: forgedToken }],
    ['bad token: forged password, cancel', { op: 'cancelDelegationToken', urlString: forgedToken }],
    ['cancel', { op: 'cancelDelegationToken', urlString: token }],
    ['bad token: renew after cancel', { op: 'renewDelegationToken', urlString: token, user: 'client1' }],
    ['bad token: cancel again', { op: 'cancelDelegationToken', urlString: token }],
    ['bad token: call with the cancelled token', { op: 'getKeys', user: 'nobody', token }],
    ['delete k1 as admin', { op: 'deleteKey', name: 'k1', user: 'admin' }],
    ['deleted: decrypt old EEK', { op: 'decryptEek', eek }],
    ['deleted: list keys', { op: 'getKeys' }],
  ]);
  return steps;
}

function ok(answer: HadoopClientAnswer | undefined): Record<string, unknown> {
  if (answer === undefined || !answer.ok) {
    throw new Error(`scenario step failed: ${JSON.stringify(answer)}`);
  }
  return answer;
}

/** Replaces values that differ between runs by nature with their kind; keeps everything else. */
export function normalise(value: unknown, key = ''): unknown {
  if (Array.isArray(value)) return value.map((v) => normalise(v, key));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, normalise(v, k)]));
  }
  if (typeof value === 'string') {
    if (['material', 'iv', 'password', 'identifier', 'identifierRewritten'].includes(key)) {
      return `<${Buffer.from(value, 'base64url').length} bytes>`;
    }
    if (key === 'urlString') return '<token>';
    if (key === 'issueDate' || key === 'maxDate') return '<time>';
    return normaliseText(value);
  }
  if (typeof value === 'number' && (key === 'created' || key === 'expiryMs')) return '<time>';
  if (typeof value === 'number' && (key === 'sequenceNumber' || key === 'masterKeyId')) return '<n>';
  return value;
}

/** Ports, token strings and the times and counters in identifier dumps, replaced by placeholders. */
export function normaliseText(text: string): string {
  return text
    .replace(/127\.0\.0\.1:\d+/g, '<host:port>')
    .replace(/jceks:\/\/file@\S+/g, 'jceks://file@<keystore>')
    .replace(/token=[A-Za-z0-9_-]+/g, 'token=<token>')
    .replace(/(issueDate|maxDate|sequenceNumber|masterKeyId)=-?\d+/g, '$1=<n>')
    .replace(/(current time|currentTime|expected renewal time): ?\d+/g, '$1: <n>');
}
