import { machineTable, parseJavaVersion, pomProperty } from './machine-info.js';

describe('machine info', () => {
  it('reads the Java version and runtime from java -version', () => {
    expect(
      parseJavaVersion(
        'openjdk version "17.0.15" 2025-04-15\nOpenJDK Runtime Environment (build 17.0.15+6-Debian-1deb12u1)\nOpenJDK 64-Bit Server VM\n',
      ),
    ).toBe('17.0.15 (OpenJDK Runtime Environment (build 17.0.15+6-Debian-1deb12u1))');
    expect(parseJavaVersion('java: command not found')).toBeNull();
  });

  it('reads a version property of a fixture POM', () => {
    const pom =
      '<properties>\n  <hadoop.version>3.4.2</hadoop.version>\n  <hadoopXversion>9</hadoopXversion>\n</properties>';
    expect(pomProperty(pom, 'hadoop.version')).toBe('3.4.2');
    expect(pomProperty(pom, 'ozone.version')).toBeNull();
  });

  it('lists only the tools the run used', () => {
    const env = {
      capturedAt: '',
      node: 'v20',
      v8: '11',
      platform: 'linux',
      osRelease: '6',
      arch: 'x64',
      cpuModel: 'CPU',
      cores: 2,
      totalMemoryBytes: 2 * 1024 ** 3,
      freeMemoryBytes: 1024 ** 3,
      loadAverage: [1, 2, 3] as [number, number, number],
      gitCommit: 'abc',
    };
    const items = (m: Parameters<typeof machineTable>[0]) => machineTable(m).map((r) => r[0]);
    expect(items({ ...env, java: null, zookeeper: null, hadoop: null, ozone: null })).not.toContain('Java');
    expect(items({ ...env, java: '17', zookeeper: '3.8.0', hadoop: '3.4.2', ozone: null })).toEqual([
      'CPU',
      'memory',
      'load average at the start',
      'OS',
      'Node',
      'Java',
      'ZooKeeper',
      'Hadoop',
    ]);
  });
});
