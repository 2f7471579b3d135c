// One HTTP answer as it came over the wire: status, the reason phrase (which fetch drops),
// headers and body. The side-by-side tests compare these between Hadoop's KMS and fastpath-kms.
import { request, type IncomingHttpHeaders } from 'node:http';

export interface RawAnswer {
  status: number | undefined;
  reason: string | undefined;
  headers: IncomingHttpHeaders;
  body: string;
}

/** Sends one request on a fresh connection and reads the whole answer. */
export function rawRequest(
  url: string,
  options: { method?: string; headers?: Record<string, string> } = {},
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: options.method ?? 'GET', headers: options.headers, agent: false },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode, reason: res.statusMessage, headers: res.headers, body }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}
