import { missingArtifact } from './maven.js';

describe('missingArtifact', () => {
  it('names the missing parent, not the artifact whose descriptor needed it', () => {
    // Maven 3.8's line for Ozone 2.2.0 on Maven Central.
    expect(
      missingArtifact(
        '[ERROR] Failed to execute goal on project ozone-fixture: Could not resolve dependencies for project ' +
          'dev.fastpath.tools:ozone-fixture:pom:0.0.0: Failed to collect dependencies at org.apache.ozone:ozone-mini-cluster:jar:2.2.0 ' +
          '-> org.apache.ozone:hdds-common:jar:2.2.0: Failed to read artifact descriptor for org.apache.ozone:hdds-common:jar:2.2.0: ' +
          'Could not find artifact org.apache.ozone:hdds-hadoop-dependency-client:pom:2.2.0 in central (https://repo.maven.apache.org/maven2) -> [Help 1]',
      ),
    ).toBe('org.apache.ozone:hdds-hadoop-dependency-client:pom:2.2.0');
  });

  it('reads the cached-failure and offline forms', () => {
    expect(
      missingArtifact(
        '[ERROR] Failed to execute goal x: Unable to find/resolve artifact. Failed to read artifact descriptor for ' +
          'org.apache.ozone:hdds-common:jar:2.2.0: org.apache.ozone:hdds-hadoop-dependency-client:pom:2.2.0 was not found in ' +
          'https://repo.maven.apache.org/maven2 during a previous attempt.',
      ),
    ).toBe('org.apache.ozone:hdds-hadoop-dependency-client:pom:2.2.0');
    expect(
      missingArtifact(
        '[ERROR] Failed to execute goal on project p: Could not resolve dependencies for project p: The following artifacts ' +
          'could not be resolved: org.apache.ozone:ozone-manager:jar:2.2.0, org.apache.ozone:hdds-common:jar:2.2.0: Cannot access central',
      ),
    ).toBe('org.apache.ozone:ozone-manager:jar:2.2.0');
  });

  it('ignores lines that are not errors or name nothing', () => {
    expect(missingArtifact('[INFO] Could not find artifact a:b:jar:1')).toBeUndefined();
    expect(missingArtifact('[ERROR] BUILD FAILURE')).toBeUndefined();
  });
});
