import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { JS_CRC_KERNEL } from '../checksum.js';
import {
  JS_BULK_ENGINE,
  loadNativeBulk,
  loadNativeBulkFrom,
  resolveBulkEngine,
  type BulkEngine,
} from './bulk-engine.js';

const native = loadNativeBulk();

describe('the native bulk engine', () => {
  it('is refused by name, with how to build it, where the addon cannot load; auto and js then run the JS path', () => {
    const missing = loadNativeBulkFrom('/nonexistent/fastpath_bulk.node');
    expect(missing.available ? '' : missing.reason).toContain('libisal-dev');
    expect(resolveBulkEngine('js')).toBe(JS_BULK_ENGINE);
    if (native.available) {
      expect(resolveBulkEngine('auto')).toBe(native.engine);
      expect(resolveBulkEngine('native')).toBe(native.engine);
    } else {
      expect(resolveBulkEngine('auto')).toBe(JS_BULK_ENGINE);
      expect(resolveBulkEngine('native')).toEqual({ unavailable: native.reason });
    }
  });
});

// Each engine here: the native one where the addon is built (CI builds it, and fails when it does
// not load), checked against the JS path's CRCs and copies.
const ENGINES = [JS_BULK_ENGINE, ...(native.available ? [native.engine] : [])];

/** The engine's copy: on its threads when it has them, else in place as its callers do. */
async function copy(engine: BulkEngine, src: Uint8Array, dst: Uint8Array, at: number): Promise<void> {
  if (engine.copyAsync) await engine.copyAsync(src, dst, at);
  else dst.set(src, at);
}

describe.each(ENGINES)('the $name engine', (engine) => {
  it('computes the CRCs of the JS path for any bytes, both types, views at any offset', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 70_000 }),
        fc.nat({ max: 17 }),
        fc.constantFrom('CRC32' as const, 'CRC32C' as const),
        (bytes, skip, type) => {
          const view = bytes.subarray(Math.min(skip, bytes.length));
          expect(engine.crc.crc(type, view)).toBe(JS_CRC_KERNEL.crc(type, view));
        },
      ),
      { numRuns: 300 },
    );
    // The standard check values, and a window of 4 MiB.
    expect(engine.crc.crc('CRC32', Buffer.from('123456789'))).toBe(0xcbf43926);
    expect(engine.crc.crc('CRC32C', Buffer.from('123456789'))).toBe(0xe3069283);
    const big = randomBytes(4 << 20);
    expect(engine.crc.crc('CRC32', big)).toBe(JS_CRC_KERNEL.crc('CRC32', big));
  });

  it('copies on the thread pool into the target at an offset, leaving the rest as it was', async () => {
    const src = randomBytes(3 << 20);
    const dst = Buffer.alloc((3 << 20) + 100, 0xee);
    await copy(engine, src.subarray(5), dst, 37);
    expect(dst.subarray(37, 37 + src.length - 5).equals(src.subarray(5))).toBe(true);
    expect(dst.subarray(0, 37).every((b) => b === 0xee)).toBe(true);
    expect(dst.subarray(37 + src.length - 5).every((b) => b === 0xee)).toBe(true);
    // Many at once, each into its own part.
    const parts = Array.from({ length: 16 }, () => randomBytes(300_000));
    const joined = Buffer.alloc(16 * 300_000);
    await Promise.all(parts.map((p, i) => copy(engine, p, joined, i * 300_000)));
    expect(joined.equals(Buffer.concat(parts))).toBe(true);
  });
});

it('the addon refuses bad arguments with a TypeError before touching anything', async () => {
  for (const engine of ENGINES.filter((e) => e.copyAsync !== undefined)) {
    const dst = Buffer.alloc(10, 1);
    // The addon's TypeErrors come from Node's realm, not the test's: matched by name and code.
    const typeError = { name: 'TypeError', code: 'ERR_INVALID_ARG_TYPE' };
    await expect(engine.copyAsync!(Buffer.alloc(8), dst, 3)).rejects.toMatchObject(typeError);
    await expect(engine.copyAsync!(Buffer.alloc(1), dst, -1)).rejects.toMatchObject(typeError);
    expect(() => engine.crc.crc('MD5' as 'CRC32', dst)).toThrow(/type 2 \(CRC32\) or 3 \(CRC32C\)/);
    expect(dst.every((b) => b === 1)).toBe(true);
  }
});
