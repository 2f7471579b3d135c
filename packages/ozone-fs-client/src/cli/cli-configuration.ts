// The command line's Ozone settings, read one way for every `fastpath-ozone` command: the
// ozone-site.xml files of `--conf` in order, then the `-D key=value` overrides on top.
import { HadoopConfiguration } from '@fastpath/hadoop-common';

/** The settings of `--conf` files and `-D` overrides, as properties for the client. */
export function cliProperties(
  confFiles: readonly string[],
  overrides: Readonly<Record<string, string>>,
  env: Readonly<Record<string, string | undefined>>,
): Record<string, string> {
  const conf = HadoopConfiguration.layered(
    ...confFiles.map((f) => HadoopConfiguration.fromXmlFile(f, { env })),
    new HadoopConfiguration().withOverrides(overrides, '-D'),
  );
  const properties: Record<string, string> = {};
  for (const key of conf.keys()) properties[key] = conf.get(key) as string;
  return properties;
}
