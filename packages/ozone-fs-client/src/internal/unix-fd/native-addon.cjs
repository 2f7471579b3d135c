// Where the optional native addon is built (scripts/build-native.mjs), as a CommonJS module so
// that its place is found the same way from src/ under jest, from dist/ once built, and from the
// bundled command (dist/fastpath-ozone.cjs, where this file is inlined).
const { join } = require('node:path');
const { packageDir } = require('../package-dir.cjs');

const addonPath = join(packageDir(__dirname), 'native/build/Release/fastpath_unix_fd.node');

module.exports = {
  addonPath,
  /** Loads the addon from `path` (default: the built one); throws when it cannot. */
  loadAddon(path = addonPath) {
    return require(path);
  },
};
