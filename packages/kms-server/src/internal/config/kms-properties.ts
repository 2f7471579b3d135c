import { KMS_SETTINGS } from './kms-settings-table.js';

export { AUTH_PREFIX, ZK_DT_PREFIX, ZK_SIGNER_PREFIX } from './kms-settings-table.js';

/**
 * Every `kms-site.xml` property the server reads, with its default, from the settings table
 * (`KMS_SETTINGS`). `${fastpath.kms.data.dir}` and other `${…}` references are substituted when
 * read. Units are in the names (`.sec`, `.ms`, `.bytes`) as in Hadoop.
 *
 * @example
 * ```ts
 * KMS_PROPERTY_DEFAULTS['hadoop.kms.http.port']; // '9600'
 * ```
 */
export const KMS_PROPERTY_DEFAULTS: Readonly<Record<string, string>> = Object.freeze(
  Object.fromEntries(KMS_SETTINGS.map((row) => [row.key, row.default])),
);

/** Environment variables that set a property, and the property each one sets (from `KMS_SETTINGS`). */
export const KMS_ENVIRONMENT_VARIABLES: Readonly<Record<string, string>> = Object.freeze(
  Object.fromEntries(
    KMS_SETTINGS.flatMap((row) => (row.env === undefined ? [] : [[row.env, row.key] as const])),
  ),
);
