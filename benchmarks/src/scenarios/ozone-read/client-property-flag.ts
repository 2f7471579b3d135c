// The `--client-property` flag of the real-cluster Ozone scenarios: Ozone client properties set on
// every fastpath case after the scenario's own, so that one setting can be measured against the
// defaults with Java beside it in the same run. Each value is checked as the client checks it, so
// a typo fails the command line rather than the first case.
import { ozoneClientConfigFromProperties } from '@fastpath/ozone-fs-client';
import { BenchmarkUsageError, type FlagDefinition } from '../../harness/index.js';

/** The flag's definition; `example` is one `key=value` the scenario's help shows. */
export function clientPropertyFlag(example: string): FlagDefinition {
  return {
    type: 'string',
    value: '<k=v,...>',
    description: `fastpath's client properties on every fastpath case, after the scenario's own, e.g. ${example} (checked as the client checks them)`,
  };
}

/** `--client-property`: `key=value` pairs, comma-separated, each value checked as the client would. */
export function clientPropertiesFlag(scenario: string, raw: string | undefined): Record<string, string> {
  if (raw === undefined) return {};
  const properties: Record<string, string> = {};
  for (const item of raw.split(',')) {
    const at = item.indexOf('=');
    const key = item.slice(0, at).trim();
    if (at <= 0 || key === '')
      throw new BenchmarkUsageError(`${scenario}: --client-property takes key=value pairs, got "${item}"`);
    properties[key] = item.slice(at + 1).trim();
  }
  try {
    ozoneClientConfigFromProperties(properties);
  } catch (err) {
    throw new BenchmarkUsageError(`${scenario}: --client-property: ${(err as Error).message}`);
  }
  return properties;
}

/** The properties as a report names them: `` `k=v` `` items, comma-separated. */
export function clientPropertiesText(properties: Readonly<Record<string, string>>): string {
  return Object.entries(properties)
    .map(([k, v]) => `\`${k}=${v}\``)
    .join(', ');
}
