// Builds the optional native addons with node-gyp against the headers of the Node that runs this
// script, so nothing is downloaded:
// - native/unix-fd.c → native/build/Release/fastpath_unix_fd.node (short-circuit reads);
// - native/isal/isal-ec.c → native/isal/build/Release/fastpath_isal_ec.node (ISA-L erasure
//   coding, needs Debian's libisal-dev; always optional);
// - native/bulk/bulk.c → native/bulk/build/Release/fastpath_bulk.node (ISA-L's CRCs and copies on
//   the thread pool for the data path, needs libisal-dev too; always optional).
// Skips an addon that is newer than its sources. Without --required a failed build is reported
// and the script exits 0: the client then reads over gRPC only (short-circuit off). --required
// applies to the unix-fd addon; without ISA-L the erasure coders run their TypeScript kernel and
// the data path its JS engine.
// Usage: node scripts/build-native.mjs [--required] [--force]
import { execFileSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const pkg = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const required = process.argv.includes('--required');
const force = process.argv.includes('--force');

const ADDONS = [
  {
    dir: join(pkg, 'native'),
    addon: 'build/Release/fastpath_unix_fd.node',
    sources: ['unix-fd.c', 'binding.gyp'],
    required,
    without: 'short-circuit reads stay off (the client reads over gRPC)',
  },
  {
    dir: join(pkg, 'native/isal'),
    addon: 'build/Release/fastpath_isal_ec.node',
    sources: ['isal-ec.c', 'binding.gyp', '../napi-isal.h'],
    required: false,
    without: 'erasure coding runs its TypeScript kernel (install libisal-dev for ISA-L)',
    // Debian's libisal-dev; without it there is nothing to build against.
    needs: '/usr/include/isa-l/erasure_code.h',
  },
  {
    dir: join(pkg, 'native/bulk'),
    addon: 'build/Release/fastpath_bulk.node',
    sources: ['bulk.c', 'binding.gyp', '../napi-isal.h'],
    required: false,
    without: 'the data path runs its JS engine (install libisal-dev for the native one)',
    needs: '/usr/include/isa-l/crc.h',
  },
];

let failed = false;
for (const spec of ADDONS) {
  const message = build(spec);
  if (message === undefined) continue;
  process.stderr.write(`build-native: ${message}\n`);
  if (spec.required) failed = true;
  else process.stderr.write(`build-native: ${spec.without}\n`);
}
process.exit(failed ? 1 : 0);

/** Builds one addon; returns why it could not, or undefined. */
function build({ dir, addon, sources, needs }) {
  const out = join(dir, addon);
  if (process.platform !== 'linux') return `no addon for ${process.platform} (Linux only)`;
  const inputs = sources.map((f) => join(dir, f));
  if (!force && existsSync(out) && inputs.every((s) => statSync(s).mtimeMs <= statSync(out).mtimeMs)) return;
  if (needs !== undefined && !existsSync(needs)) return `${needs} is missing`;
  // The headers of this very Node: an installed prefix has include/node/node_api.h beside bin/.
  const prefix = resolve(dirname(process.execPath), '..');
  if (!existsSync(join(prefix, 'include/node/node_api.h')))
    return `no Node headers under ${join(prefix, 'include/node')} (install the Node development headers)`;
  // npm runs scripts with its own node-gyp in npm_config_node_gyp; run directly, use the node-gyp
  // bundled with the npm installed beside this Node, else one on PATH.
  const bundled = join(prefix, 'lib/node_modules/npm/node_modules/node-gyp/bin/node-gyp.js');
  const gyp = process.env.npm_config_node_gyp ?? (existsSync(bundled) ? bundled : undefined);
  const [command, args] = gyp ? [process.execPath, [gyp]] : ['node-gyp', []];
  try {
    execFileSync(command, [...args, 'rebuild', `--nodedir=${prefix}`, '--loglevel=error'], {
      cwd: dir,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  } catch (err) {
    return `node-gyp failed in ${dir}: ${err.message}\n${err.stdout ?? ''}${err.stderr ?? ''}`;
  }
  if (!existsSync(out)) return `node-gyp finished but ${out} is missing`;
}
