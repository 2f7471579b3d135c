import { jettyErrorPage } from './jetty-error-page.js';

const JAVA_ACCEPT = 'text/html, image/gif, image/jpeg, *; q=.2, */*; q=.2';
const MESSAGE = 'java.lang.IllegalArgumentException: newLimit > capacity: (97 > 5)';

describe("Jetty's error page, as Hadoop 3.4.2's KMS sends it for a refused SPNEGO token", () => {
  it("is the HTML page Hadoop's KMS answered Java's Accept with, byte for byte", () => {
    const page = jettyErrorPage(JAVA_ACCEPT, 403, MESSAGE, '/kms/v1/keys/names');
    // Recorded from Hadoop 3.4.2's KMS (the message quoted by Hadoop, then by Jetty).
    expect(page?.contentType).toBe('text/html;charset=iso-8859-1');
    expect(page?.cacheControl).toBe('must-revalidate,no-cache,no-store');
    expect(page?.body.toString('latin1')).toBe(
      '<html>\n<head>\n<meta http-equiv="Content-Type" content="text/html;charset=ISO-8859-1"/>\n' +
        '<title>Error 403 java.lang.IllegalArgumentException: newLimit &amp;gt; capacity: (97 &amp;gt; 5)</title>\n' +
        '</head>\n<body><h2>HTTP ERROR 403 java.lang.IllegalArgumentException: newLimit &amp;gt; capacity: (97 &amp;gt; 5)</h2>\n' +
        '<table>\n<tr><th>URI:</th><td>/kms/v1/keys/names</td></tr>\n<tr><th>STATUS:</th><td>403</td></tr>\n' +
        '<tr><th>MESSAGE:</th><td>java.lang.IllegalArgumentException: newLimit &amp;gt; capacity: (97 &amp;gt; 5)</td></tr>\n' +
        '<tr><th>SERVLET:</th><td>webservices-driver</td></tr>\n</table>\n\n</body>\n</html>\n',
    );
  });

  it('answers JSON and plain text when asked, HTML for any type, nothing for none it writes', () => {
    const m = 'GSSException: No valid credentials provided';
    const json = jettyErrorPage('application/json, text/html', 403, m, '/kms/v1/keys/names');
    expect(json?.contentType).toBe('application/json');
    expect(json?.body.toString('latin1')).toBe(
      `{\n"servlet":"webservices-driver",\n"message":"${m}",\n"url":"/kms/v1/keys/names",\n"status":"403"\n}`,
    );
    const plain = jettyErrorPage('text/plain', 403, m, '/kms/v1/keys/names');
    expect(plain?.body.toString('latin1')).toBe(
      `HTTP ERROR 403 ${m}\nURI: /kms/v1/keys/names\nSTATUS: 403\nMESSAGE: ${m}\nSERVLET: webservices-driver\n`,
    );
    for (const accept of [undefined, '*/*', 'text/*', 'image/png;q=0.5, */*;q=0.1']) {
      expect(jettyErrorPage(accept, 403, m, '/kms')?.contentType).toBe('text/html;charset=iso-8859-1');
    }
    expect(jettyErrorPage('image/png', 403, m, '/kms')).toBeUndefined();
    expect(jettyErrorPage('text/plain;q=0.5, application/json', 403, m, '/kms')?.contentType).toBe(
      'application/json',
    );
  });

  it('writes ISO-8859-1, with ? for what it cannot hold', () => {
    const page = jettyErrorPage('text/plain', 403, 'No rules applied to jürgen@Ω', '/kms');
    expect(page?.body.toString('latin1')).toContain('MESSAGE: No rules applied to jürgen@?\n');
  });
});
