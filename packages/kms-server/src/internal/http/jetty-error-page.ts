/**
 * The error page Hadoop's KMS sends when its authentication filter refuses a request with
 * `sendError` (a refused SPNEGO token): Jetty 9.4's `ErrorHandler` (the Jetty of Hadoop 3.4),
 * in the form the `Accept` header picks: an HTML page for `text/html`, `text/*` or any type, a
 * JSON object for `application/json` or `text/json`, plain text for `text/plain`; nothing when
 * none is acceptable. The message reaches Jetty HTML-quoted once by Hadoop's HTTP server, and
 * Jetty's HTML and the first line of its text quote it again (`>` shows as `&amp;gt;`), as seen
 * against Hadoop 3.4.2. Everything is written in ISO-8859-1 (characters beyond it become `?`).
 */
export interface JettyErrorPage {
  readonly contentType: string;
  readonly body: Buffer;
  /** Jetty's header on every error page. */
  readonly cacheControl: string;
}

/** The servlet Hadoop's KMS names on its error pages (its Jersey servlet). */
const KMS_SERVLET = 'webservices-driver';
const CACHE_CONTROL = 'must-revalidate,no-cache,no-store';

type Form = 'html' | 'json' | 'plain';

/** The error page for `status` and `message` of a request to `uri` (path, no query), or `undefined`. */
export function jettyErrorPage(
  accept: string | undefined,
  status: number,
  message: string,
  uri: string,
): JettyErrorPage | undefined {
  const form = acceptableForm(accept);
  if (form === undefined) return undefined;
  // The message as Jetty receives it: quoted once by Hadoop's HTTP server.
  const quoted = quoteHtml(message);
  let text: string;
  let contentType: string;
  if (form === 'html') {
    contentType = 'text/html;charset=iso-8859-1';
    const row = (name: string, value: string): string =>
      `<tr><th>${name}:</th><td>${sanitizeXml(value)}</td></tr>\n`;
    text =
      '<html>\n<head>\n<meta http-equiv="Content-Type" content="text/html;charset=ISO-8859-1"/>\n' +
      `<title>Error ${status} ${sanitizeXml(quoted)}</title>\n</head>\n<body>` +
      `<h2>HTTP ERROR ${status} ${sanitizeXml(quoted)}</h2>\n<table>\n` +
      row('URI', uri) +
      row('STATUS', String(status)) +
      row('MESSAGE', quoted) +
      row('SERVLET', KMS_SERVLET) +
      '</table>\n\n</body>\n</html>\n';
  } else if (form === 'plain') {
    contentType = 'text/plain;charset=iso-8859-1';
    text =
      `HTTP ERROR ${status} ${sanitizeXml(quoted)}\n` +
      `URI: ${uri}\nSTATUS: ${status}\nMESSAGE: ${quoted}\nSERVLET: ${KMS_SERVLET}\n`;
  } else {
    contentType = 'application/json';
    // Jetty's order (its map's), one member a line.
    text =
      `{\n"servlet":${jsonString(KMS_SERVLET)},\n"message":${jsonString(quoted)},\n` +
      `"url":${jsonString(uri)},\n"status":"${status}"\n}`;
  }
  return {
    contentType,
    body: latin1(text),
    cacheControl: CACHE_CONTROL,
  };
}

/** The first acceptable form of the `Accept` header's types, by quality then order. */
function acceptableForm(accept: string | undefined): Form | undefined {
  const types = (accept === undefined || accept.trim() === '' ? '*/*' : accept)
    .split(',')
    .map((part, index) => {
      const [type = '', ...params] = part.split(';').map((p) => p.trim());
      const q = params.find((p) => p.startsWith('q='));
      return { type: type.toLowerCase(), q: q === undefined ? 1 : Number(q.slice(2)) || 0, index };
    })
    .filter((t) => t.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index);
  for (const { type } of types) {
    if (type === 'text/html' || type === 'text/*' || type === '*/*' || type === '*') return 'html';
    if (type === 'text/json' || type === 'application/json') return 'json';
    if (type === 'text/plain') return 'plain';
  }
  return undefined;
}

/** Hadoop's `HtmlQuoting.quoteHtmlChars`. */
function quoteHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c,
  );
}

/** Jetty's `StringUtil.sanitizeXmlString`: the five XML entities, other control characters as `?`. */
function sanitizeXml(text: string): string {
  return text.replace(/[&<>'"]|[\p{Cc}]/gu, (c) => {
    switch (c) {
      case '&':
        return '&amp;';
      case '<':
        return '&lt;';
      case '>':
        return '&gt;';
      case "'":
        return '&apos;';
      case '"':
        return '&quot;';
      default:
        return /\s/u.test(c) ? c : '?';
    }
  });
}

/** ISO-8859-1 bytes, `?` for a character beyond it (as Java's encoder writes it). */
function latin1(text: string): Buffer {
  return Buffer.from(Array.from(text, (c) => ((c.codePointAt(0) ?? 0) > 0xff ? '?' : c)).join(''), 'latin1');
}

function jsonString(text: string): string {
  return JSON.stringify(text);
}
