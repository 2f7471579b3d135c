import type { ChecksumTypeName } from '../../index.js';

/** Every checksum type Ozone's client writes with, in the order the suites run them. */
export const CHECKSUM_TYPES: readonly ChecksumTypeName[] = ['NONE', 'CRC32', 'CRC32C', 'SHA256', 'MD5'];
