import { readFileSync } from 'node:fs';

/** A keytab file that cannot be used, and why (never its content). */
export class KeytabFormatError extends Error {}

/**
 * The principals of an MIT keytab file (format 0x0502, and 0x0501 whose component count
 * includes the realm), as `primary/instance@REALM`, each once, in file order. Keys are skipped,
 * never copied. Throws {@link KeytabFormatError} for anything that is not such a file, and the
 * file system's error when it cannot be read.
 *
 * @example
 * ```ts
 * keytabPrincipals('/etc/security/kms.keytab'); // ['HTTP/kms.example.com@EXAMPLE.COM']
 * ```
 */
export function keytabPrincipals(file: string): string[] {
  return parseKeytabPrincipals(readFileSync(file));
}

/** {@link keytabPrincipals} of bytes already read. */
export function parseKeytabPrincipals(bytes: Buffer): string[] {
  if (bytes.length < 2 || bytes[0] !== 0x05 || (bytes[1] !== 0x01 && bytes[1] !== 0x02)) {
    throw new KeytabFormatError('not a Kerberos keytab (no 0x0502 header)');
  }
  const countsRealm = bytes[1] === 0x01;
  const principals = new Set<string>();
  let at = 2;
  const need = (n: number, end: number): void => {
    if (at + n > end) throw new KeytabFormatError(`truncated entry at byte ${at}`);
  };
  while (at < bytes.length) {
    need(4, bytes.length);
    const size = bytes.readInt32BE(at);
    at += 4;
    if (size === 0) break;
    const end = at + Math.abs(size);
    if (end > bytes.length) throw new KeytabFormatError(`entry at byte ${at - 4} runs past the end`);
    if (size < 0) {
      at = end; // a hole left by a removed entry
      continue;
    }
    need(2, end);
    let count = bytes.readUInt16BE(at);
    at += 2;
    if (countsRealm) count -= 1;
    const text = (): string => {
      need(2, end);
      const length = bytes.readUInt16BE(at);
      at += 2;
      need(length, end);
      const value = bytes.toString('utf8', at, at + length);
      at += length;
      return value;
    };
    const realm = text();
    const components: string[] = [];
    for (let i = 0; i < count; i++) components.push(text());
    if (components.length === 0) throw new KeytabFormatError(`entry at byte ${at} has no name`);
    principals.add(`${components.join('/')}@${realm}`);
    at = end;
  }
  return [...principals];
}
