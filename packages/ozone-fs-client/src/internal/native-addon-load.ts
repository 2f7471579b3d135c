// Loading one of the package's optional native addons: never throws, says why not.
import { debuglog } from 'node:util';
import nativeAddons from './native-addons.cjs';

const debug = debuglog('fastpath-ozone');

/** An addon of shape `T`, or why there is none. */
export type NativeAddonLoad<T> =
  { readonly available: true; readonly addon: T } | { readonly available: false; readonly reason: string };

/**
 * Loads the addon at `path` and checks its shape with `isAddon`; where it cannot be loaded, the
 * reason names the path, the loader's first line and `howToBuild`.
 */
export function loadNativeAddon<T>(
  path: string,
  isAddon: (value: unknown) => value is T,
  what: string,
  howToBuild: string,
): NativeAddonLoad<T> {
  let raw: unknown;
  try {
    raw = nativeAddons.loadAddon(path);
  } catch (err) {
    return {
      available: false,
      reason: `cannot load ${path} (${(err as Error).message.split('\n')[0] ?? ''}); ${howToBuild}`,
    };
  }
  return isAddon(raw)
    ? { available: true, addon: raw }
    : { available: false, reason: `${path} is not ${what}` };
}

/**
 * `load` run on first use and its answer kept for the process; when the addon is unavailable,
 * `unavailable` and the reason are logged once (NODE_DEBUG=fastpath-ozone).
 */
export function loadOnce<
  L extends { readonly available: true } | { readonly available: false; readonly reason: string },
>(load: () => L, unavailable: string): () => L {
  let loaded: L | undefined;
  return () => {
    if (!loaded) {
      loaded = load();
      if (!loaded.available) debug('%s: %s', unavailable, loaded.reason);
    }
    return loaded;
  };
}
