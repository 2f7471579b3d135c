import { expectError } from './expect-error.js';
import { DEFAULT_KEY_ACLS, KMS_ACL_OPERATIONS, kmsAclsXml, operationAcls } from './kms-acls.js';
import { remoteExceptionOf } from './remote-exception.js';
import { eventually, gate, isPending, waitFor } from './wait-for.js';

class CodedError extends Error {
  readonly code = 'ERR_X';
  readonly retriable = false;
}

describe('waitFor', () => {
  it('resolves with the first truthy value and fails after its bound, naming what it awaited', async () => {
    let n = 0;
    await expect(waitFor('n to reach 3', () => (++n >= 3 ? n : 0), { intervalMs: 1 })).resolves.toBe(3);
    await expect(waitFor('never', () => false, { timeoutMs: 20, intervalMs: 5 })).rejects.toThrow(
      'timed out after 20 ms waiting for never',
    );
  });
});

describe('eventually', () => {
  it('retries until the function stops throwing, and at its bound rethrows the last error as it was', async () => {
    let n = 0;
    await expect(
      eventually(
        () => {
          if (++n < 3) throw new Error(`try ${n}`);
          return n;
        },
        { intervalMs: 1 },
      ),
    ).resolves.toBe(3);
    let tries = 0;
    const failure = await eventually(
      () => {
        throw new Error(`try ${++tries}`);
      },
      { timeoutMs: 20, intervalMs: 5 },
    ).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Error);
    expect(failure).toHaveProperty('message', `try ${tries}`);
    expect(tries).toBeGreaterThan(1);
  });
});

describe('isPending and gate', () => {
  it('tells a promise held by a gate as pending until the gate opens', async () => {
    const g = gate();
    const held = g.promise.then(() => 'done');
    expect(await isPending(held)).toBe(true);
    g.open();
    await expect(held).resolves.toBe('done');
  });
});

describe('expectError', () => {
  it('returns the error of the expected class and checks its code and retriable flag', () => {
    const err = expectError(
      () => {
        throw new CodedError('bad');
      },
      CodedError,
      { code: 'ERR_X', retriable: false },
    );
    expect(err.message).toBe('bad');
  });

  it('fails when nothing is thrown', () => {
    expect(() => expectError(() => 1, CodedError)).toThrow('expected a CodedError, but nothing was thrown');
  });
});

describe('remoteExceptionOf', () => {
  const body = {
    RemoteException: { exception: 'IOException', message: 'boom', javaClassName: 'java.io.IOException' },
  };

  it('returns the three fields of a RemoteException body, from text or bytes', () => {
    expect(remoteExceptionOf(JSON.stringify(body))).toEqual(body.RemoteException);
    expect(remoteExceptionOf(Buffer.from(JSON.stringify(body))).message).toBe('boom');
  });

  it('fails, naming what was wrong, on a body that is not one', () => {
    expect(() => remoteExceptionOf('<html>')).toThrow(/not JSON: <html>/);
    expect(() => remoteExceptionOf('{"error":"x"}')).toThrow(
      /expected a RemoteException body, got \{"error":"x"\}/,
    );
    expect(() => remoteExceptionOf('{"RemoteException":{"exception":1}}')).toThrow(
      /RemoteException.exception is not a string/,
    );
  });
});

describe('KMS ACL fixtures', () => {
  it('names one hadoop.kms.acl entry per operation and writes them as a Hadoop configuration file', () => {
    const acls = { ...operationAcls((op) => (op === 'CREATE' ? 'a&b' : '*')), ...DEFAULT_KEY_ACLS };
    expect(Object.keys(acls)).toHaveLength(KMS_ACL_OPERATIONS.length + 4);
    expect(acls['hadoop.kms.acl.DECRYPT_EEK']).toBe('*');
    const xml = kmsAclsXml(acls);
    expect(xml).toMatch(/^<\?xml version="1.0"\?>\n<configuration>\n/);
    expect(xml).toContain(
      '  <property><name>hadoop.kms.acl.CREATE</name><value>a&#38;b</value></property>\n',
    );
    expect(xml.endsWith('</configuration>\n')).toBe(true);
  });
});
