/** This package's version (kept equal to package.json by a test). */
export const KMS_SERVER_VERSION = '0.1.0';
/** This package's name. */
export const KMS_SERVER_NAME = '@fastpath/kms-server';
