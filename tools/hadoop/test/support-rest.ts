// The few REST calls the ZooKeeper tests make, over plain HTTP (Hadoop's REST API as documented),
// with tokens decoded by @fastpath/hadoop-common: the tests are about the servers, not a client.
import { DelegationTokenIdentifier, Token } from '@fastpath/hadoop-common';

/** A delegation token: its URL string and the identifier fields the tests look at. */
export interface IssuedToken {
  readonly urlString: string;
  readonly kind: string;
  readonly sequenceNumber: number;
  readonly masterKeyId: number;
}

/** An answer that is not 2xx. */
export class RestError extends Error {
  constructor(
    readonly status: number,
    body: string,
  ) {
    super(`HTTP ${status}: ${body.slice(0, 300)}`);
  }
}

async function call(url: string, init: RequestInit = {}): Promise<string> {
  const response = await fetch(url, init);
  const body = await response.text();
  if (response.status < 200 || response.status > 299) throw new RestError(response.status, body);
  return body;
}

/** A KMS at `url` (`http://host:port/kms`) as `user` (simple authentication). */
export class Rest {
  constructor(
    readonly url: string,
    readonly user: string,
  ) {}

  async getDelegationToken(renewer: string): Promise<IssuedToken> {
    const body = await call(
      `${this.url}/v1/?op=GETDELEGATIONTOKEN&renewer=${renewer}&user.name=${this.user}`,
    );
    const urlString = (JSON.parse(body) as { Token: { urlString: string } }).Token.urlString;
    const token = Token.fromUrlString(urlString);
    const id = DelegationTokenIdentifier.decode(token.kind, token.identifier);
    return { urlString, kind: token.kind, sequenceNumber: id.sequenceNumber, masterKeyId: id.masterKeyId };
  }

  async renewDelegationToken(token: IssuedToken): Promise<number> {
    const body = await call(
      `${this.url}/v1/?op=RENEWDELEGATIONTOKEN&token=${token.urlString}&user.name=${this.user}`,
      { method: 'PUT' },
    );
    return (JSON.parse(body) as { long: number }).long;
  }

  async cancelDelegationToken(token: IssuedToken): Promise<void> {
    await call(`${this.url}/v1/?op=CANCELDELEGATIONTOKEN&token=${token.urlString}&user.name=${this.user}`, {
      method: 'PUT',
    });
  }

  /** `GET /v1/keys/names` authenticated by `token` alone (the `X-Hadoop-Delegation-Token` header). */
  async keyNamesWithToken(token: IssuedToken): Promise<string[]> {
    return JSON.parse(
      await call(`${this.url}/v1/keys/names`, { headers: { 'x-hadoop-delegation-token': token.urlString } }),
    ) as string[];
  }
}

/** The error a call failed with, failing the test when it succeeded. */
export async function rejected(promise: Promise<unknown>): Promise<RestError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof RestError) return err;
    throw err;
  }
  throw new Error('the call succeeded');
}
