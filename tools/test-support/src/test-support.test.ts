import { expectError } from './expect-error.js';
import { remoteExceptionOf } from './remote-exception.js';
import { gate, isPending, waitFor } from './wait-for.js';

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
