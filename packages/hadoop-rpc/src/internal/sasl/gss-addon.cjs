// Where the optional GSS-API addon is built (scripts/build-native.mjs): native/gss/ of this
// package, three folders up from here in src/internal/sasl and in dist/internal/sasl alike.
const { join } = require('node:path');

const addonPath = join(__dirname, '../../../native/gss/build/Release/fastpath_gss.node');

module.exports = {
  addonPath,
  /** Loads the addon from `path` (default: the built one); throws when it cannot. */
  loadAddon(path = addonPath) {
    return require(path);
  },
};
