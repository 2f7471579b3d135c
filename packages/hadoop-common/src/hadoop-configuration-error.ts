import { FastpathError } from '@fastpath/core';

/**
 * A Hadoop configuration that cannot be used: a file that cannot be read, XML that is not a
 * well-formed `<configuration>`, or a property whose value its getter refuses. Code
 * `ERR_HADOOP_CONFIGURATION`, never retriable: the same file fails the same way until it is fixed.
 * `property` names the property at fault, or the file when the whole file is refused.
 *
 * @example
 * ```ts
 * try {
 *   HadoopConfiguration.fromXmlFile('/etc/ozone/ozone-site.xml').getInteger('ozone.om.port', 9862);
 * } catch (err) {
 *   if (err instanceof HadoopConfigurationError) console.error(`fix ${err.property}: ${err.message}`);
 * }
 * ```
 */
export class HadoopConfigurationError extends FastpathError {
  /** The property (or file) at fault. */
  readonly property: string;
  constructor(property: string, message: string, options: { cause?: unknown } = {}) {
    super('ERR_HADOOP_CONFIGURATION', message, options);
    this.property = property;
  }
}
