import { join } from 'node:path';
import { HadoopConfiguration } from '@fastpath/hadoop-common';
import { withKmsConfigErrors } from './kms-config-errors.js';
import { resolveKmsSettings, type KmsSettings } from './kms-settings.js';

/** The site configuration file's name in the config directory. */
export const KMS_SITE_FILE = 'kms-site.xml';
/** The ACL file's name in the config directory. */
export const KMS_ACLS_FILE = 'kms-acls.xml';

/** One layer of overrides on top of `kms-site.xml`, and what to call it in messages. */
export interface SettingsLayer {
  readonly source: string;
  readonly values: Readonly<Record<string, string | undefined>>;
}

/** Where settings come from, lowest precedence first after the defaults. */
export interface KmsSettingsSources {
  /** Directory holding `kms-site.xml` (optional) and `kms-acls.xml` (optional). */
  configDir?: string | undefined;
  /** Overrides, applied in order on top of `kms-site.xml`. */
  layers?: readonly SettingsLayer[];
  /** Environment for `${env.NAME}` substitution. Default: `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Base of relative paths. Default: `process.cwd()`. */
  cwd?: string;
}

/**
 * Reads `kms-site.xml` from the config directory (when there is one), puts the override layers
 * on top, and resolves every setting. Throws `ERR_KMS_CONFIG` naming the property at fault.
 *
 * @example
 * ```ts
 * const settings = loadKmsSettings({
 *   configDir: '/etc/kms',
 *   layers: [{ source: 'command line', values: { 'hadoop.kms.http.port': '9700' } }],
 * });
 * ```
 */
export function loadKmsSettings(sources: KmsSettingsSources): {
  settings: KmsSettings;
  site: HadoopConfiguration;
} {
  return withKmsConfigErrors(() => {
    const env = sources.env ?? process.env;
    const file =
      sources.configDir === undefined
        ? new HadoopConfiguration([], env)
        : HadoopConfiguration.fromXmlFile(join(sources.configDir, KMS_SITE_FILE), { optional: true, env });
    let site = file;
    for (const layer of sources.layers ?? []) site = site.withOverrides(layer.values, layer.source);
    const settings = resolveKmsSettings(site, {
      env,
      ...(sources.cwd === undefined ? {} : { cwd: sources.cwd }),
    });
    return { settings, site };
  });
}
