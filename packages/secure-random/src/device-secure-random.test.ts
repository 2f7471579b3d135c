import { randomFillSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InvalidOptionError, FastpathError } from '@fastpath/core';
import { DEFAULT_DEVICE_SECURE_RANDOM_OPTIONS, DeviceSecureRandom } from './device-secure-random.js';
import { DeviceReadError, DeviceShortReadError, DeviceUnavailableError } from './secure-random-errors.js';
import { expectError } from '@fastpath/test-support';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'secure-random-device-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** A regular file standing in for a device: its bytes are known, and it ends. */
function fakeDevice(name: string, size: number): { path: string; content: Buffer } {
  const content = randomFillSync(Buffer.alloc(size));
  const path = join(dir, name);
  writeFileSync(path, content);
  return { path, content };
}

describe('DeviceSecureRandom', () => {
  it('reads from /dev/urandom by default', () => {
    using random = new DeviceSecureRandom();
    expect(random.path).toBe('/dev/urandom');
    expect(DEFAULT_DEVICE_SECURE_RANDOM_OPTIONS).toEqual({ path: '/dev/urandom', reservoirBytes: 8192 });
    const a = random.bytes(32);
    const b = random.bytes(32);
    expect(a.equals(b)).toBe(false);
  });

  it('honours the path option and serves the device bytes in order, across reservoir refills', () => {
    const device = fakeDevice('ordered', 3 * 8192);
    using random = new DeviceSecureRandom({ path: device.path });
    const first = random.bytes(10);
    const second = random.fill(new Uint8Array(10_000));
    const third = random.bytes(3 * 8192 - 10_010);
    expect(Buffer.concat([first, second, third]).equals(device.content)).toBe(true);
  });

  it('reads a whole reservoir per refill, like Hadoop', () => {
    const device = fakeDevice('whole-reservoir', 100);
    using random = new DeviceSecureRandom({ path: device.path, reservoirBytes: 64 });
    // The first draw pulls 64 bytes; the second needs another 64 and the file has 36: it fails
    // although 36 bytes would have been enough for the draw itself.
    expect(random.bytes(8).equals(device.content.subarray(0, 8))).toBe(true);
    random.bytes(56);
    expect(() => random.bytes(1)).toThrow(DeviceShortReadError);
  });

  it('fails clearly, at construction, when the device does not exist', () => {
    const path = join(dir, 'no-such-device');
    let error: unknown;
    try {
      new DeviceSecureRandom({ path });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(DeviceUnavailableError);
    expect(error).toMatchObject({ code: 'ERR_SECURE_RANDOM_DEVICE_UNAVAILABLE', path, retriable: false });
    expect((error as Error).message).toContain(path);
    expect((error as Error).message).toContain('ENOENT');
    expect((error as Error).cause).toMatchObject({ code: 'ENOENT' });
  });

  it('reports a device that cannot be read, and zeroes the target', () => {
    using random = new DeviceSecureRandom({ path: dir }); // a directory opens but does not read
    const target = Buffer.alloc(16, 0xaa);
    expect(() => random.fill(target)).toThrow(DeviceReadError);
    expectError(() => random.fill(target), FastpathError, { code: 'ERR_SECURE_RANDOM_DEVICE_READ' });
    expect(target.every((b) => b === 0)).toBe(true);
  });

  it('never reports a partly filled buffer as success on a short read', () => {
    const device = fakeDevice('short', 100);
    using random = new DeviceSecureRandom({ path: device.path, reservoirBytes: 64 });
    const target = Buffer.alloc(100, 0xaa);
    let error: unknown;
    try {
      random.fill(target); // 64 bytes arrive, then the device ends after 36 of the next 64
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(DeviceShortReadError);
    expect(error).toMatchObject({ code: 'ERR_SECURE_RANDOM_SHORT_READ', expectedBytes: 64, actualBytes: 36 });
    expect(target.every((b) => b === 0)).toBe(true);
    // The device stays at its end: later draws keep failing instead of serving leftovers.
    expect(
      expectError(() => random.bytes(1), FastpathError, { code: 'ERR_SECURE_RANDOM_SHORT_READ' }),
    ).toMatchObject({ actualBytes: 0 });
  });

  it('fails a short device with the default reservoir before serving a single byte', () => {
    const device = fakeDevice('tiny', 100);
    using random = new DeviceSecureRandom({ path: device.path });
    expect(expectError(() => random.bytes(16), FastpathError)).toMatchObject({
      expectedBytes: 8192,
      actualBytes: 100,
    });
  });

  it('closes its descriptor once, wipes the reservoir and refuses later draws', () => {
    const random = new DeviceSecureRandom();
    random.bytes(16);
    random.close();
    random.close();
    expectError(() => random.bytes(16), FastpathError, { code: 'ERR_SECURE_RANDOM_CLOSED' });
    const target = Buffer.alloc(8, 1);
    expectError(() => random.fill(target), FastpathError, { code: 'ERR_SECURE_RANDOM_CLOSED' });
    expect(target.every((b) => b === 0)).toBe(true);
  });

  it.each([
    ['path', { path: '' }],
    ['reservoirBytes', { reservoirBytes: 0 }],
    ['reservoirBytes', { reservoirBytes: 1.5 }],
    ['reservoirBytes', { reservoirBytes: 64 * 1024 * 1024 }],
  ])('rejects a bad %s', (option, options) => {
    expect(() => new DeviceSecureRandom(options)).toThrow(InvalidOptionError);
    expect(expectError(() => new DeviceSecureRandom(options), FastpathError)).toMatchObject({ option });
  });
});
