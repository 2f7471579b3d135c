// A real Hadoop KMS, driven by Hadoop's own clients: KeyShell and KMSClientProvider.
import {
  runHadoopClient,
  runKeyShell,
  startHadoopKms,
  type DriverEek,
  type HadoopKms,
} from '@fastpath/hadoop-fixture';
import { failed, isAlive, ok } from './support.js';

jest.setTimeout(600_000);

let kms: HadoopKms;

beforeAll(async () => {
  kms = await startHadoopKms({ acls: { 'hadoop.kms.acl.DELETE': 'admin,client' } });
  process.stderr.write(
    `hadoop-kms: Hadoop ${kms.installation.hadoopVersion} KMS answered ${kms.startMs} ms after spawn\n`,
  );
});

afterAll(async () => {
  const pid = kms.pid;
  await kms.close();
  // No JVM left behind.
  expect(isAlive(pid)).toBe(false);
});

describe('Hadoop KMS started by the fixture', () => {
  it('answers the REST API on loopback: a fresh KMS has no keys', async () => {
    expect(kms.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/kms$/);
    const names = await fetch(`${kms.url}/v1/keys/names?user.name=client`);
    expect(names.status).toBe(200);
    expect(await names.json()).toEqual([]);
    // Simple authentication: no user.name is refused.
    expect((await fetch(`${kms.url}/v1/keys/names`)).status).toBe(401);
  });

  it('KeyShell creates, rolls, lists with metadata and deletes a key', async () => {
    const create = await runKeyShell(kms.installation, kms.providerUri, [
      'create',
      'shell-key',
      '-size',
      '128',
      '-description',
      'made by KeyShell',
    ]);
    expect(create.code).toBe(0);
    expect(create.stdout).toMatch(/shell-key has been successfully created/);
    const roll = await runKeyShell(kms.installation, kms.providerUri, ['roll', 'shell-key']);
    expect(roll.code).toBe(0);
    expect(roll.stdout).toMatch(/shell-key has been successfully rolled/);
    const list = await runKeyShell(kms.installation, kms.providerUri, ['list', '-metadata']);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(
      /shell-key : cipher: AES\/CTR\/NoPadding, length: 128, description: made by KeyShell, created: .*, version: 2, attributes: \[key\.acl\.name=shell-key\]/,
    );
    const del = await runKeyShell(kms.installation, kms.providerUri, ['delete', 'shell-key', '-f']);
    expect(del.code).toBe(0);
    expect(del.stdout).toMatch(/shell-key has been successfully deleted/);
    const after = await runKeyShell(kms.installation, kms.providerUri, ['list']);
    expect(after.stdout).not.toMatch(/shell-key/);
  });

  it('KMSClientProvider generates, decrypts and re-encrypts EEKs', async () => {
    const [created, , eeks] = await runHadoopClient(kms.installation, kms.providerUri, [
      { op: 'createKey', name: 'eek-key', length: 128 },
      { op: 'invalidateCache', name: 'eek-key' },
      { op: 'generateEek', name: 'eek-key', num: 3 },
    ]);
    expect(ok(created)['versionName']).toBe('eek-key@0');
    const generated = ok(eeks)['eeks'] as DriverEek[];
    expect(generated).toHaveLength(3);
    const first = generated[0] as DriverEek;
    expect(first.innerVersionName).toBe('EEK');
    expect(Buffer.from(first.material, 'base64url')).toHaveLength(16);

    const answers = await runHadoopClient(kms.installation, kms.providerUri, [
      { op: 'decryptEek', eek: first },
      { op: 'decryptEek', eek: first },
      { op: 'decryptEek', eek: generated[1] as DriverEek },
      { op: 'rollNewVersion', name: 'eek-key' },
      { op: 'reencryptEek', eek: first },
      { op: 'reencryptEeks', eeks: generated },
    ]);
    const dek = ok(answers[0]);
    expect(dek['versionName']).toBe('EK');
    expect(Buffer.from(dek['material'] as string, 'base64url')).toHaveLength(16);
    expect(ok(answers[1])['material']).toBe(dek['material']);
    expect(ok(answers[2])['material']).not.toBe(dek['material']);
    const reencrypted = ok(answers[4])['eek'] as DriverEek;
    expect(reencrypted.versionName).toBe('eek-key@1');
    expect(reencrypted.iv).toBe(first.iv);
    expect(reencrypted.material).not.toBe(first.material);
    const batch = ok(answers[5])['eeks'] as DriverEek[];
    expect(batch.map((e) => e.versionName)).toEqual(['eek-key@1', 'eek-key@1', 'eek-key@1']);

    const [again] = await runHadoopClient(kms.installation, kms.providerUri, [
      { op: 'decryptEek', eek: reencrypted },
    ]);
    expect(ok(again)['material']).toBe(dek['material']);
  });

  it('KMSClientProvider gets, uses, renews and cancels a delegation token', async () => {
    const [got] = await runHadoopClient(kms.installation, kms.providerUri, [
      { op: 'getDelegationToken', renewer: 'renewer1' },
    ]);
    const token = ok(got);
    expect(token['kind']).toBe('kms-dt');
    expect(token['fields']).toMatchObject({ owner: 'client', renewer: 'renewer1', realUser: '' });
    const urlString = token['urlString'] as string;
    const answers = await runHadoopClient(kms.installation, kms.providerUri, [
      { op: 'getKeys', user: 'someone-else', token: urlString },
      { op: 'renewDelegationToken', urlString, user: 'renewer1' },
      { op: 'renewDelegationToken', urlString, user: 'client' },
      { op: 'cancelDelegationToken', urlString },
      { op: 'renewDelegationToken', urlString, user: 'renewer1' },
      { op: 'cancelDelegationToken', urlString },
    ]);
    expect(ok(answers[0])['keys']).toEqual(expect.arrayContaining(['eek-key']));
    expect(Number(ok(answers[1])['expiryMs'])).toBeGreaterThan(Date.now());
    expect(failed(answers[2]).message).toMatch(
      /tries to renew a token .* with non-matching renewer renewer1/,
    );
    ok(answers[3]);
    expect(failed(answers[4]).message).toMatch(/Renewal request for unknown token/);
    expect(failed(answers[5]).message).toMatch(
      /HTTP status \[404\], message \[Invalid delegation token, cannot cancel\]/,
    );
  });
});
