// The failures of delegation-token operations over plain HTTP, side by side: Hadoop's KMS answers
// them from its authentication filter (the reason in the status line, an empty body, the cookie
// cleared for a refusal), and Hadoop's own client reads the reason from there. fastpath-kms must
// answer the same way (D9 in docs/hadoop-interop.md: a RemoteException body made Hadoop's client
// fail with an UndeclaredThrowableException that hid the reason).
import { startHadoopKms, type HadoopKms } from '@fastpath/hadoop-fixture';
import { startFastpathKms, type FastpathKms } from './support-fastpath.js';
import { rawRequest } from './support-raw.js';

jest.setTimeout(600_000);

interface Answer {
  status: number | undefined;
  reason: string | undefined;
  body: string;
  contentType: string | undefined;
  clearsCookie: boolean;
}

async function call(url: string, method: string): Promise<Answer> {
  const res = await rawRequest(url, { method });
  return {
    status: res.status,
    // Token fields that differ between two servers' tokens (dates, numbers).
    reason: res.reason?.replace(/=\d+/g, '=<n>'),
    body: res.body,
    contentType: res.headers['content-type']?.split(';')[0],
    clearsCookie: (res.headers['set-cookie'] ?? []).some((c) => c.startsWith('hadoop.auth=;')),
  };
}

async function failures(base: string): Promise<Record<string, Answer>> {
  const issued = await fetch(`${base}/v1/?op=GETDELEGATIONTOKEN&renewer=client1&user.name=client`);
  const token = ((await issued.json()) as { Token: { urlString: string } }).Token.urlString;
  const dt = (query: string) => `${base}/v1/?${query}`;
  const answers: Record<string, Answer> = {};
  answers['renew by a user who is not the renewer'] = await call(
    dt(`op=RENEWDELEGATIONTOKEN&token=${token}&user.name=client`),
    'PUT',
  );
  answers['renew without token'] = await call(dt('op=RENEWDELEGATIONTOKEN&user.name=client1'), 'PUT');
  answers['get with the wrong method'] = await call(dt('op=GETDELEGATIONTOKEN&user.name=client'), 'PUT');
  answers['renew without a user'] = await call(dt(`op=RENEWDELEGATIONTOKEN&token=${token}`), 'PUT');
  answers['cancel'] = await call(dt(`op=CANCELDELEGATIONTOKEN&token=${token}&user.name=client1`), 'PUT');
  answers['cancel again'] = await call(
    dt(`op=CANCELDELEGATIONTOKEN&token=${token}&user.name=client1`),
    'PUT',
  );
  answers['renew after cancel'] = await call(
    dt(`op=RENEWDELEGATIONTOKEN&token=${token}&user.name=client1`),
    'PUT',
  );
  return answers;
}

let hadoop: HadoopKms;
let fastpath: FastpathKms;

beforeAll(async () => {
  hadoop = await startHadoopKms();
  fastpath = await startFastpathKms({}, {});
});

afterAll(async () => {
  await fastpath?.close();
  await hadoop?.close();
});

it('token-operation failures: the same status, the reason in the status line, no body', async () => {
  const fromHadoop = await failures(hadoop.url);
  const fromFastpath = await failures(fastpath.url);
  // What Hadoop answers, as found (so a change in either shows here first).
  const filter = (status: number, reason: string, clearsCookie = false): Answer => ({
    status,
    reason,
    body: '',
    contentType: undefined,
    clearsCookie,
  });
  const fields =
    'kms-dt owner=client, renewer=client1, realUser=, issueDate=<n>, maxDate=<n>, sequenceNumber=<n>, masterKeyId=<n>';
  expect(fromHadoop).toEqual({
    'renew by a user who is not the renewer': filter(
      403,
      `org.apache.hadoop.security.AccessControlException: client tries to renew a token (${fields}) with non-matching renewer client1`,
      true,
    ),
    'renew without token': filter(400, 'Operation [RENEWDELEGATIONTOKEN] requires the parameter [token]'),
    'get with the wrong method': filter(
      400,
      'Wrong HTTP method [PUT] for operation [GETDELEGATIONTOKEN], it should be [GET]',
    ),
    // The pseudo handler's refusal of a call without a user (Hadoop sets a text/plain type on it).
    'renew without a user': { ...filter(403, 'Forbidden'), contentType: 'text/plain' },
    cancel: { ...filter(200, 'OK'), contentType: 'text/plain' },
    'cancel again': filter(404, 'Invalid delegation token, cannot cancel'),
    'renew after cancel': filter(
      403,
      `org.apache.hadoop.security.token.SecretManager$InvalidToken: Renewal request for unknown token (${fields})`,
      true,
    ),
  });
  // fastpath-kms: the same, except that it sets no content type on an answer without a body.
  const withoutType = (answers: Record<string, Answer>): Record<string, Answer> =>
    Object.fromEntries(
      Object.entries(answers).map(([step, answer]) => [
        step,
        answer.body === '' ? { ...answer, contentType: undefined } : answer,
      ]),
    );
  expect(fromFastpath).toEqual(withoutType(fromHadoop));
});
