// Where the optional bulk addon is built (scripts/build-native.mjs), found as the unix-fd addon
// is (see ../unix-fd/native-addon.cjs).
const { join } = require('node:path');
const { packageDir } = require('../package-dir.cjs');

const addonPath = join(packageDir(__dirname), 'native/bulk/build/Release/fastpath_bulk.node');

module.exports = {
  addonPath,
  /** Loads the addon from `path` (default: the built one); throws when it cannot. */
  loadAddon(path = addonPath) {
    return require(path);
  },
};
