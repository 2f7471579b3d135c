import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

export interface HttpResult {
  status: number;
  /** The reason phrase of the status line. */
  statusMessage: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** The body parsed as JSON, untyped: read it through the readers of `kms-json.ts`. */
  json(): unknown;
}

/** One request on a fresh connection (no keep-alive), so a cluster may route it to any worker. */
export function http(
  url: string,
  options: {
    method?: string;
    body?: unknown;
    rawBody?: string;
    headers?: Record<string, string>;
    ca?: Buffer;
    timeoutMs?: number;
  } = {},
): Promise<HttpResult> {
  const payload = options.rawBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
  const target = new URL(url);
  const request = target.protocol === 'https:' ? httpsRequest : httpRequest;
  // The path as written, not as URL parsing normalises it: a key named `.` or `..` is a path
  // segment a parser drops (`/kms/v1/key/./_eek` would go out as `/kms/v1/key/_eek`).
  const slash = url.indexOf('/', url.indexOf('//') + 2);
  const path = slash < 0 ? `${target.pathname}${target.search}` : url.slice(slash);
  return new Promise((resolve, reject) => {
    const req = request(
      target,
      {
        method: options.method ?? 'GET',
        path,
        agent: false,
        headers: {
          ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
          ...options.headers,
        },
        ...(options.ca ? { ca: options.ca } : {}),
        timeout: options.timeoutMs ?? 20_000,
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            statusMessage: res.statusMessage ?? '',
            headers: res.headers,
            body,
            json: (): unknown => JSON.parse(body),
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`request to ${url} timed out`)));
    req.on('error', reject);
    req.end(payload);
  });
}
