import { loadNativeAddon, loadOnce } from '../native-addon-load.js';
import nativeAddons from '../native-addons.cjs';
import type { GfMatrixEngine } from './raw-erasure-coder.js';

interface RawIsalAddon {
  initTables(k: number, rows: number, coefs: Uint8Array): Uint8Array;
  encodeData(
    len: number,
    k: number,
    rows: number,
    tables: Uint8Array,
    inputs: readonly Uint8Array[],
    outputs: readonly Uint8Array[],
  ): void;
}

/** The ISA-L engine, or why there is none. */
export type IsalEngineLoad =
  | { readonly available: true; readonly engine: GfMatrixEngine }
  | { readonly available: false; readonly reason: string };

function isRawIsalAddon(value: unknown): value is RawIsalAddon {
  const v = value as Partial<Record<keyof RawIsalAddon, unknown>> | null;
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof v.initTables === 'function' &&
    typeof v.encodeData === 'function'
  );
}

/** Loads the ISA-L addon from `path`; never throws. */
export function loadIsalEngineFrom(path: string): IsalEngineLoad {
  const load = loadNativeAddon(
    path,
    isRawIsalAddon,
    'the ISA-L addon',
    'install libisal-dev and run "npm run build:native -w @fastpath/ozone-fs-client"',
  );
  if (!load.available) return load;
  const addon = load.addon;
  // ISA-L expands each coefficient matrix into 32-byte tables per coefficient; a coder applies
  // the same matrix stripe after stripe, so the tables are kept per matrix.
  const tables = new WeakMap<Uint8Array, Uint8Array>();
  const engine: GfMatrixEngine = {
    name: 'isa-l',
    multiply(coefs, k, inputs, outputs, len) {
      let t = tables.get(coefs);
      if (t === undefined) {
        t = addon.initTables(k, outputs.length, coefs);
        tables.set(coefs, t);
      }
      addon.encodeData(len, k, outputs.length, t, inputs, outputs);
    },
  };
  return { available: true, engine: Object.freeze(engine) };
}

/** The built ISA-L engine, loaded on first use; when unavailable, why is logged once (NODE_DEBUG=fastpath-ozone). */
export const loadIsalEngine: () => IsalEngineLoad = loadOnce(
  () => loadIsalEngineFrom(nativeAddons.addonPaths.isalEc),
  'ISA-L erasure coding unavailable, the TypeScript codec is used',
);
