import { MalformedKerberosNameError } from './kerberos-name-errors.js';

// At most two components and a realm: `service[/host][@REALM]`, none of them empty.
const NAME = /^([^/@]+)(?:\/([^/@]+))?(?:@([^/@]+))?$/;

/**
 * A Kerberos principal name as Hadoop's `KerberosName` splits it: `serviceName` (the first
 * component), `hostName` (the second, if any) and `realm` (if any). A name that does not have
 * that shape but has no `@` is kept whole as `serviceName` (Hadoop treats it as already simple).
 *
 * @example
 * ```ts
 * const name = KerberosName.parse('HTTP/abc.com@EXAMPLE.COM');
 * name.serviceName; // 'HTTP'
 * name.hostName; // 'abc.com'
 * name.realm; // 'EXAMPLE.COM'
 * ```
 */
export class KerberosName {
  private constructor(
    /**
     * The first component (`HTTP` of `HTTP/abc.com@EXAMPLE.COM`); the whole name for a name Hadoop
     * takes as simple.
     */
    readonly serviceName: string,
    /**
     * The second component (`abc.com`), or `undefined` for a one-component principal such as
     * `alice@EXAMPLE.COM`.
     */
    readonly hostName: string | undefined,
    /** The realm after `@` (`EXAMPLE.COM`), or `undefined` when the name has none. */
    readonly realm: string | undefined,
  ) {}

  /**
   * @throws MalformedKerberosNameError for a name with `@` that is not `service[/host]@REALM`
   */
  static parse(name: string): KerberosName {
    const match = NAME.exec(name);
    if (match === null) {
      if (name.includes('@')) throw new MalformedKerberosNameError(name);
      return new KerberosName(name, undefined, undefined);
    }
    return new KerberosName(match[1] ?? '', match[2], match[3]);
  }

  /** The name put back together: `service[/host][@REALM]`. */
  toString(): string {
    return (
      this.serviceName +
      (this.hostName === undefined ? '' : `/${this.hostName}`) +
      (this.realm === undefined ? '' : `@${this.realm}`)
    );
  }
}
