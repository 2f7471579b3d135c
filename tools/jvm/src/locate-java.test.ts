import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { JavaNotFoundError, MavenNotFoundError } from './jvm-errors.js';
import { locateJava } from './locate-java.js';
import { locateMaven } from './locate-maven.js';

// A machine without Java and Maven, as this process sees it: an empty PATH and no JAVA_HOME.
// Nothing is uninstalled; without apt-get on that PATH the fixtures can only say what to install.
describe('a machine without java, javac or mvn', () => {
  const saved = { PATH: process.env['PATH'], JAVA_HOME: process.env['JAVA_HOME'] };
  let empty: string;
  beforeEach(() => {
    empty = mkdtempSync(join(tmpdir(), 'no-java-'));
    process.env['PATH'] = empty;
    delete process.env['JAVA_HOME'];
  });
  afterEach(() => {
    process.env['PATH'] = saved.PATH;
    if (saved.JAVA_HOME === undefined) delete process.env['JAVA_HOME'];
    else process.env['JAVA_HOME'] = saved.JAVA_HOME;
    rmSync(empty, { recursive: true, force: true });
  });

  it('names the JDK package for java and for javac', async () => {
    for (const requireJavac of [false, true]) {
      const err = await locateJava({ requireJavac, purpose: 'the test' }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(JavaNotFoundError);
      expect((err as Error).message).toContain('apt-get is not available');
      expect((err as Error).message).toContain('apt-get install -y openjdk-17-jdk-headless');
    }
  });

  it('names maven for mvn, and says when installing was turned off', async () => {
    const err = await locateMaven({ installIfMissing: false }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MavenNotFoundError);
    expect((err as Error).message).toContain('installation is disabled');
    expect((err as Error).message).toContain('apt-get install -y maven');
  });
});
