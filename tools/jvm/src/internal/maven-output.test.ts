import { downloadedBytes, errorLines, failingArtifact, isTransferLine } from './maven-output.js';

describe('maven-output', () => {
  it('reads the size of a download line in SI units', () => {
    expect(
      downloadedBytes(
        '[INFO] Downloaded from central: https://repo.maven.apache.org/maven2/a/b/1/b-1.pom (13 kB at 4.7 kB/s)',
      ),
    ).toBe(13_000);
    expect(downloadedBytes('[INFO] Downloaded from central: https://x/y.jar (2.5 MB at 1 MB/s)')).toBe(
      2_500_000,
    );
    expect(downloadedBytes('[INFO] Downloaded from central: https://x/y.sha1 (40 B at 1 kB/s)')).toBe(40);
    expect(downloadedBytes('[INFO] Downloading from central: https://x/y.jar')).toBeUndefined();
    expect(isTransferLine('[INFO] Downloading from central: https://x/y.jar')).toBe(true);
    expect(isTransferLine('[INFO] BUILD SUCCESS')).toBe(false);
  });

  it.each([
    [
      '[ERROR] Failed to execute goal on project p: Could not resolve dependencies for project g:p:pom:1: ' +
        'Could not find artifact org.example:nope:jar:9.9 in central (https://repo.maven.apache.org/maven2) -> [Help 1]',
      'org.example:nope:jar:9.9',
    ],
    [
      '[ERROR] ... Cannot access central (https://repo.maven.apache.org/maven2) in offline mode and the artifact ' +
        'org.example:nope:jar:9.9 has not been downloaded from it before. -> [Help 1]',
      'org.example:nope:jar:9.9',
    ],
    [
      '[ERROR] Failed to collect dependencies at org.apache.hadoop:hadoop-kms:jar:3.4.2 -> com.x:y:jar:1.0: ' +
        'Failed to read artifact descriptor for com.x:y:jar:1.0: Could not transfer artifact com.x:y:pom:1.0 from/to central',
      'com.x:y:pom:1.0',
    ],
    [
      '[ERROR] Failed to collect dependencies at org.apache.hadoop:hadoop-kms:jar:3.4.2 -> com.x:y:jar:1.0: boom',
      'com.x:y:jar:1.0',
    ],
    [
      'The following artifacts could not be resolved: org.example:a:jar:1 (absent), org.example:b:jar:2 (absent)',
      'org.example:a:jar:1',
    ],
    ['[ERROR] something unrelated', undefined],
  ])('names the failing artifact in %s', (output, artifact) => {
    expect(failingArtifact(output)).toBe(artifact);
  });

  it('keeps the error lines without the help boilerplate', () => {
    expect(
      errorLines(
        '[INFO] x\n[ERROR] Failed to execute goal: boom\n[ERROR] \n[ERROR] To see the full stack trace of the errors\n[ERROR] Re-run Maven using -X',
      ),
    ).toEqual(['Failed to execute goal: boom']);
  });
});
