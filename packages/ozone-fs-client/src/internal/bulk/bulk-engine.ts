// Who does the data path's byte work: the CRC of every checksum window (written and verified) and
// the copy of written bytes into chunk buffers. The JS path does both on the JS thread; the
// optional native addon (native/bulk, on Debian's libisal) runs ISA-L's hardware CRCs and copies
// large writes on libuv's thread pool. Both give the same bytes and pass the same contract suites.
import { JS_CRC_KERNEL, type CrcKernel } from '../checksum.js';
import { loadNativeAddon, loadOnce } from '../native-addon-load.js';
import nativeAddons from '../native-addons.cjs';

/** `ozone.client.bulk.engine`: `auto` (native where the addon is built, else JS), `native` or `js`. */
export type BulkEngineName = 'auto' | 'native' | 'js';

export const BULK_ENGINE_NAMES: readonly BulkEngineName[] = Object.freeze(['auto', 'native', 'js']);

/** The engine a client's streams use. */
export interface BulkEngine {
  /** `native` or `js`. */
  readonly name: 'native' | 'js';
  readonly crc: CrcKernel;
  /**
   * Copies all of `src` into `dst` at `at` off the JS thread; absent in the JS engine, whose
   * callers copy in place. Neither buffer may change until it settles.
   */
  readonly copyAsync?: (src: Uint8Array, dst: Uint8Array, at: number) => Promise<void>;
}

export const JS_BULK_ENGINE: BulkEngine = Object.freeze({ name: 'js', crc: JS_CRC_KERNEL });

/** The native engine, or why there is none. */
export type NativeBulkLoad =
  | { readonly available: true; readonly engine: BulkEngine }
  | { readonly available: false; readonly reason: string };

interface RawBulkAddon {
  crc(type: number, data: Uint8Array): number;
  copyAsync(src: Uint8Array, dst: Uint8Array, at: number, callback: (err: Error | null) => void): void;
}

function isRawBulkAddon(value: unknown): value is RawBulkAddon {
  const v = value as Partial<Record<keyof RawBulkAddon, unknown>> | null;
  return (
    typeof v === 'object' && v !== null && typeof v.crc === 'function' && typeof v.copyAsync === 'function'
  );
}

// The proto values of ChecksumType, which the addon takes.
const CRC_TYPE_VALUES = { CRC32: 2, CRC32C: 3 } as const;

/** Loads the native engine from `path`; never throws. */
export function loadNativeBulkFrom(path: string): NativeBulkLoad {
  const load = loadNativeAddon(
    path,
    isRawBulkAddon,
    'the bulk addon',
    'install libisal-dev and run "npm run build:native -w @fastpath/ozone-fs-client"',
  );
  if (!load.available) return load;
  const addon = load.addon;
  const engine: BulkEngine = {
    name: 'native',
    crc: Object.freeze({
      name: 'isa-l',
      crc: (type: 'CRC32' | 'CRC32C', data: Uint8Array): number => addon.crc(CRC_TYPE_VALUES[type], data),
    }),
    copyAsync: (src, dst, at) =>
      new Promise<void>((resolve, reject) =>
        addon.copyAsync(src, dst, at, (err) => (err ? reject(err) : resolve())),
      ),
  };
  return { available: true, engine: Object.freeze(engine) };
}

/** The built native engine, loaded on first use; when unavailable, why is logged once (NODE_DEBUG=fastpath-ozone). */
export const loadNativeBulk: () => NativeBulkLoad = loadOnce(
  () => loadNativeBulkFrom(nativeAddons.addonPaths.bulk),
  'the native bulk engine is unavailable, the JS path is used',
);

/**
 * The engine `name` picks: `js`, or the native one for `native` and (where it loads) `auto`.
 * Returns why not for `native` when the addon is missing.
 */
export function resolveBulkEngine(name: BulkEngineName): BulkEngine | { readonly unavailable: string } {
  if (name === 'js') return JS_BULK_ENGINE;
  const native = loadNativeBulk();
  if (native.available) return native.engine;
  return name === 'native' ? { unavailable: native.reason } : JS_BULK_ENGINE;
}
