/** This package's version (kept equal to package.json by a test; written by the release with it). */
export const KMS_SERVER_VERSION = '0.2.0';
/** This package's name. */
export const KMS_SERVER_NAME = '@fastpath/kms-server';
