import { InvalidOptionError, Redacted, FastpathError } from '@fastpath/core';
import { DelegationTokenIdentifier, Token } from '@fastpath/hadoop-common';
import { DEFAULT_KMS_CLIENT_OPTIONS, KmsClient } from './kms-client.js';
import type { KmsClientOptions } from './kms-client.js';
import type { EncryptedKeyVersion } from './encrypted-key-version.js';
import { KmsError } from './kms-errors.js';
import { expectError } from '@fastpath/test-support';

// Nothing listens on port 1: a call that reached the network would fail with ERR_KMS_UNREACHABLE,
// so an ERR_KMS_INVALID_ARGUMENT here proves the client refused before sending anything.
const URL_NOWHERE = 'http://127.0.0.1:1/kms';

const token = new Token({
  identifier: new DelegationTokenIdentifier('kms-dt', {
    owner: 'alice',
    renewer: 'alice',
    realUser: '',
    issueDate: 1,
    maxDate: 2,
    sequenceNumber: 1,
    masterKeyId: 1,
  }).bytes,
  password: new Redacted(Buffer.alloc(20, 1)),
  kind: 'kms-dt',
  service: '',
}).toUrlString();

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof KmsError) return `${err.code}${'argument' in err ? `:${String(err.argument)}` : ''}`;
    throw err;
  }
  throw new Error('the call succeeded');
}

describe('KmsClient options', () => {
  it('has frozen defaults', () => {
    expect(Object.isFrozen(DEFAULT_KMS_CLIENT_OPTIONS)).toBe(true);
    expect(DEFAULT_KMS_CLIENT_OPTIONS).toEqual({
      rejectUnauthorized: true,
      connections: 16,
      keepAliveTimeoutMs: 4000,
      connectTimeoutMs: 10000,
      requestTimeoutMs: 60000,
      retries: 0,
      retryDelayMs: 100,
      maxResponseBytes: 16 * 1024 * 1024,
    });
  });

  it.each<[string, Partial<KmsClientOptions>]>([
    ['url', { url: '' }],
    ['url', { url: 'ftp://h/kms' }],
    ['connections', { connections: 0 }],
    ['connections', { connections: 1.5 }],
    ['keepAliveTimeoutMs', { keepAliveTimeoutMs: -1 }],
    ['connectTimeoutMs', { connectTimeoutMs: 0 }],
    ['requestTimeoutMs', { requestTimeoutMs: Number.NaN }],
    ['retries', { retries: -1 }],
    ['retries', { retries: 101 }],
    ['retryDelayMs', { retryDelayMs: 1e9 }],
    ['maxResponseBytes', { maxResponseBytes: 10 }],
    ['rejectUnauthorized', { rejectUnauthorized: 'no' as unknown as boolean }],
    ['ca', { ca: 42 as unknown as string }],
    ['user', { user: '' }],
    ['user', { user: 'a\nb' }],
    ['doAs', { doAs: '' }],
    ['delegationToken', { delegationToken: 'not a token' }],
  ])('refuses a bad %s', (field, bad) => {
    let caught: unknown;
    try {
      new KmsClient({ url: URL_NOWHERE, ...bad });
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(InvalidOptionError);
    expect((caught as InvalidOptionError).option).toBe(field);
  });

  it('refuses a missing options object', () => {
    expect(() => new KmsClient(undefined as unknown as KmsClientOptions)).toThrow(InvalidOptionError);
  });

  it('never puts a rejected token into the error message', () => {
    const secret = `${token.slice(0, -4)}!!!!`;
    const error = expectError(
      () => new KmsClient({ url: URL_NOWHERE, delegationToken: secret }),
      FastpathError,
    );
    expect(error.message).not.toContain(secret.slice(0, 20));
  });

  it('accepts a token as a string, a Redacted string or an object, and normalizes the URL', async () => {
    for (const delegationToken of [token, new Redacted(token)]) {
      const client = new KmsClient({ url: 'kms://http@127.0.0.1:1/kms/v1/', delegationToken });
      expect(client.url).toBe('http://127.0.0.1:1/kms');
      await client.close();
    }
  });

  it('refuses bad views', async () => {
    const client = new KmsClient({ url: URL_NOWHERE });
    expect(expectError(() => client.withAuth({ user: '' }), InvalidOptionError)).toMatchObject({
      option: 'auth.user',
    });
    expect(() => client.withAuth(null as unknown as object)).toThrow(InvalidOptionError);
    await client.close();
  });
});

describe('KmsClient arguments', () => {
  const client = new KmsClient({ url: URL_NOWHERE });
  afterAll(() => client.close());

  const eek: EncryptedKeyVersion = {
    encryptionKeyName: 'k1',
    encryptionKeyVersionName: 'k1@0',
    iv: Buffer.alloc(16),
    encryptedKeyVersion: { name: 'k1', versionName: 'EEK', material: new Redacted(Buffer.alloc(16)) },
  };

  it.each<[string, () => Promise<unknown>, string]>([
    ['createKey without a name', () => client.createKey(''), 'name'],
    ['createKey with a fractional length', () => client.createKey('k', { length: 12.5 }), 'length'],
    ['createKey with empty material', () => client.createKey('k', { material: Buffer.alloc(0) }), 'material'],
    [
      'createKey with a non-string attribute',
      () => client.createKey('k', { attributes: { a: 1 } as unknown as Record<string, string> }),
      'attributes.a',
    ],
    ['createKey with an empty cipher', () => client.createKey('k', { cipher: '' }), 'cipher'],
    [
      'rollNewVersion with bad material',
      () => client.rollNewVersion('k', { material: 'x' as unknown as Buffer }),
      'material',
    ],
    ['deleteKey without a name', () => client.deleteKey(''), 'name'],
    ['getKeysMetadata with an empty name', () => client.getKeysMetadata(['a', '']), 'names[1]'],
    ['getKeysMetadata without an array', () => client.getKeysMetadata('a' as unknown as string[]), 'names'],
    ['getKeyVersion without a name', () => client.getKeyVersion(''), 'versionName'],
    ['generateEncryptedKeys of 0 keys', () => client.generateEncryptedKeys('k', 0), 'numKeys'],
    ['generateEncryptedKeys of 1.5 keys', () => client.generateEncryptedKeys('k', 1.5), 'numKeys'],
    [
      'decryptEncryptedKey of a non-EEK',
      () =>
        client.decryptEncryptedKey({
          ...eek,
          encryptedKeyVersion: { ...eek.encryptedKeyVersion, versionName: 'k1@0' },
        }),
      'eek',
    ],
    [
      'decryptEncryptedKey without an iv',
      () => client.decryptEncryptedKey({ ...eek, iv: Buffer.alloc(0) }),
      'eek',
    ],
    [
      'reencryptEncryptedKey without material',
      () =>
        client.reencryptEncryptedKey({
          ...eek,
          encryptedKeyVersion: { ...eek.encryptedKeyVersion, material: null },
        }),
      'eek',
    ],
    [
      'reencryptEncryptedKeys mixing keys',
      () => client.reencryptEncryptedKeys([eek, { ...eek, encryptionKeyName: 'k2' }]),
      'eeks[1]',
    ],
    ['getDelegationToken with an empty renewer', () => client.getDelegationToken({ renewer: '' }), 'renewer'],
    ['a call with a bad timeout', () => client.getKeyNames({ timeoutMs: 0 }), 'timeoutMs'],
  ])('%s is refused before sending', async (_what, call, argument) => {
    expect(await codeOf(call())).toBe(`ERR_KMS_INVALID_ARGUMENT:${argument}`);
  });

  it('refuses a malformed token before sending', async () => {
    expect(await codeOf(client.renewDelegationToken('garbage!'))).toBe('ERR_KMS_TOKEN_MALFORMED');
    expect(await codeOf(client.cancelDelegationToken(''))).toBe('ERR_KMS_TOKEN_MALFORMED');
  });

  it('answers an empty batch without a call', async () => {
    expect(await client.reencryptEncryptedKeys([])).toEqual([]);
  });

  it('reports a refused connection as retriable ERR_KMS_UNREACHABLE', async () => {
    const err = await client.getKeyNames().catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'ERR_KMS_UNREACHABLE', retriable: true, operation: 'getKeyNames' });
    expect((err as Error).message).toContain('ECONNREFUSED');
  });
});

describe('KmsClient.close', () => {
  it('is idempotent; later calls fail with ERR_KMS_CLIENT_CLOSED; views do not close the pool', async () => {
    const client = new KmsClient({ url: URL_NOWHERE });
    const view = client.withAuth({ user: 'bob' });
    await view.close();
    expect(await codeOf(view.getKeyNames())).toBe('ERR_KMS_UNREACHABLE');
    await client.close();
    await client.close();
    expect(await codeOf(client.getKeyNames())).toBe('ERR_KMS_CLIENT_CLOSED');
    expect(await codeOf(view.getKeyNames())).toBe('ERR_KMS_CLIENT_CLOSED');
  });

  it('fails a call whose signal already fired with ERR_KMS_ABORTED', async () => {
    await using client = new KmsClient({ url: URL_NOWHERE });
    expect(await codeOf(client.getKeyNames({ signal: AbortSignal.abort() }))).toBe('ERR_KMS_ABORTED');
  });
});
