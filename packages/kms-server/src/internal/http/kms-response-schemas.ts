// Response schemas of the fixed JSON shapes of the KMS REST API (Hadoop's KMSRESTConstants
// fields, in Hadoop's order). Fastify compiles each into a serializer (fast-json-stringify), so
// a key operation's answer is written without a JSON.stringify walk. A missing key answers `{}`:
// no field is required.
const KEY_VERSION = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    versionName: { type: 'string' },
    material: { type: ['string', 'null'] },
  },
} as const;

const METADATA = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    cipher: { type: 'string' },
    length: { type: 'integer' },
    description: { type: ['string', 'null'] },
    attributes: { type: 'object', additionalProperties: { type: 'string' } },
    created: { type: 'integer' },
    versions: { type: 'integer' },
  },
} as const;

const EEK = {
  type: 'object',
  properties: {
    versionName: { type: 'string' },
    iv: { type: 'string' },
    encryptedKeyVersion: KEY_VERSION,
  },
} as const;

const arrayOf = <T>(items: T) => ({ type: 'array', items }) as const;

/** The answers of the key operations, by shape. */
export const KMS_RESPONSE_SCHEMAS = Object.freeze({
  keyVersion: KEY_VERSION,
  keyVersions: arrayOf(KEY_VERSION),
  metadata: METADATA,
  metadataList: arrayOf(METADATA),
  eek: EEK,
  eeks: arrayOf(EEK),
  names: arrayOf({ type: 'string' }),
});

/** The path parameter of a key (`:name`) or a key version (`:versionName`) route. */
export const nameParams = (param: 'name' | 'versionName') =>
  ({
    type: 'object',
    properties: { [param]: { type: 'string' } },
    required: [param],
  }) as const;
