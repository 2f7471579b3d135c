import { mkdtempSync, openSync, closeSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkLoadedJars, openJarFiles, parseJarName, versionsOf } from './loaded-jars.js';

describe('parseJarName', () => {
  it('splits at the first dash followed by a digit', () => {
    expect(parseJarName('hadoop-common-3.4.2.jar')).toEqual({ artifact: 'hadoop-common', version: '3.4.2' });
    expect(parseJarName('/m2/org/x/jetty-util-9.4.57.v20241219.jar')).toEqual({
      artifact: 'jetty-util',
      version: '9.4.57.v20241219',
    });
    expect(parseJarName('re2j-1.1.jar')).toEqual({ artifact: 're2j', version: '1.1' });
    expect(parseJarName('classes.jar')).toBeNull();
    expect(parseJarName('hadoop-common-3.4.2.pom')).toBeNull();
  });
});

describe('checkLoadedJars', () => {
  const loaded = ['hadoop-kms-3.4.2.jar', 'hadoop-common-3.4.1.jar', 'zookeeper-3.8.4.jar'];
  it('names each expected artifact that is missing or at another version', () => {
    expect(checkLoadedJars(loaded, [{ artifact: 'hadoop-kms', version: '3.4.2' }])).toEqual([]);
    expect(
      checkLoadedJars(loaded, [
        { artifact: 'hadoop-common', version: '3.4.2' },
        { artifact: 'hadoop-auth', version: '3.4.2' },
      ]),
    ).toEqual(['hadoop-common 3.4.1 is loaded, expected 3.4.2', 'hadoop-auth 3.4.2 is not loaded']);
  });
  it('lists versions in the order asked', () => {
    expect(versionsOf(loaded, ['zookeeper', 'hadoop-kms', 'curator-client'])).toEqual([
      'zookeeper 3.8.4',
      'hadoop-kms 3.4.2',
    ]);
  });
});

describe('openJarFiles', () => {
  it('lists the jar files this process holds open, by name', () => {
    const dir = mkdtempSync(join(tmpdir(), 'loaded-jars-'));
    const jar = join(dir, 'probe-artifact-1.2.3.jar');
    writeFileSync(jar, '');
    const fd = openSync(jar, 'r');
    try {
      expect(openJarFiles(process.pid)).toContain('probe-artifact-1.2.3.jar');
    } finally {
      closeSync(fd);
      rmSync(dir, { recursive: true, force: true });
    }
    expect(openJarFiles(process.pid)).not.toContain('probe-artifact-1.2.3.jar');
  });
});
