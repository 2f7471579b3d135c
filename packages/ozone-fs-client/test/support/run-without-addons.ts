// Runs one of these support scripts (TypeScript, through tsx) in a Node process of its own where
// the named native addons cannot load (no-native-addons.cjs), with NODE_DEBUG=fastpath-ozone so
// that its stderr carries the client's reasons; resolves with what it printed.
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { promisify } from 'node:util';

export async function runWithoutAddons(
  missing: readonly string[],
  script: string,
  args: readonly string[],
): Promise<{ stdout: string; stderr: string }> {
  const tsx = createRequire(__filename).resolve('tsx');
  return promisify(execFile)(
    process.execPath,
    [
      '--require',
      join(__dirname, 'no-native-addons.cjs'),
      '--import',
      tsx,
      '--conditions',
      'development',
      join(__dirname, script),
      ...args,
    ],
    {
      env: { ...process.env, NODE_DEBUG: 'fastpath-ozone', FASTPATH_MISSING_ADDONS: missing.join(',') },
      timeout: 60_000,
    },
  );
}
