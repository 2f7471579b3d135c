// The embedded OM's side of hsync, as Ozone 2.2.0's OMKeyCommitRequest has it: CommitKey with
// `hsync` (or `recovery`) is refused with NOT_SUPPORTED_OPERATION unless both OM settings are on;
// an hsync commit writes the key to the key table with every block and byte it names and marks it
// with the writer's open-key ID (metadata `hsyncClientId`), while the open key stays open for
// more writes and hsyncs; the final commit closes it and drops the mark.
import { MiniClusterError } from '../ozone-errors.js';
import type { hadoop } from '../internal/proto/wire.js';

/** Key metadata naming the open key (its client ID) that hsync'ed the key; Ozone's `OzoneConsts.HSYNC_CLIENT_ID`. */
export const HSYNC_CLIENT_ID_METADATA = 'hsyncClientId';

/** The OM settings that gate hsync; both default to false, as in Ozone. */
export interface MiniOmHsyncSettings {
  hbaseEnhancementsAllowed: boolean;
  hsyncEnabled: boolean;
}

const KEYS: Readonly<Record<string, keyof MiniOmHsyncSettings>> = Object.freeze({
  'ozone.hbase.enhancements.allowed': 'hbaseEnhancementsAllowed',
  'ozone.fs.hsync.enabled': 'hsyncEnabled',
});

/** Reads the OM configuration the mini cluster understands; anything else is refused, naming the key. */
export function miniOmHsyncSettings(
  configuration: Readonly<Record<string, string>> = {},
): MiniOmHsyncSettings {
  const settings: MiniOmHsyncSettings = { hbaseEnhancementsAllowed: false, hsyncEnabled: false };
  for (const [key, text] of Object.entries(configuration)) {
    const field = KEYS[key];
    if (!field)
      throw new MiniClusterError(
        `omConfiguration: the mini cluster's OM reads only ${Object.keys(KEYS).join(', ')}, not ${key}`,
      );
    const value = String(text).trim().toLowerCase();
    if (value !== 'true' && value !== 'false')
      throw new MiniClusterError(
        `omConfiguration.${key}: expected true or false, got ${JSON.stringify(text)}`,
      );
    settings[field] = value === 'true';
  }
  return settings;
}

/** The message of the OM's NOT_SUPPORTED_OPERATION answer to this CommitKey, or undefined when it may go on. */
export function hsyncCommitRefusal(
  settings: MiniOmHsyncSettings,
  request: hadoop.ozone.ICommitKeyRequest,
): string | undefined {
  const wantsHsync = request.hsync === true || request.recovery === true;
  if (!wantsHsync || (settings.hbaseEnhancementsAllowed && settings.hsyncEnabled)) return undefined;
  return 'Hsync is not enabled. To enable, set ozone.fs.hsync.enabled = true';
}

/** The committed key's metadata: an hsync marks it with the writer's open-key ID, a final commit leaves none. */
export function metadataAfterCommit(clientId: bigint, hsync: boolean): Record<string, string> | undefined {
  return hsync ? { [HSYNC_CLIENT_ID_METADATA]: clientId.toString() } : undefined;
}
