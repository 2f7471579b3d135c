// The key operations of the REST API as Fastify routes, one per path and method, each with the
// schema of its path parameter and of its answer. Methods a path does not serve answer 405 with
// Hadoop's body. Every input check stays in the operations (KmsInput), in Hadoop's order and with
// Hadoop's messages, so a path parameter schema only states the shape (a string, which every
// path parameter is).
import type { FastifyInstance, FastifyReply, FastifyRequest, FastifySchema } from 'fastify';
import { KmsRequestError } from '../../kms-errors.js';
import type { KmsUser } from '../acl/kms-user.js';
import type { KmsOperations } from '../operations/kms-operations.js';
import { KMS_RESPONSE_SCHEMAS, nameParams } from './kms-response-schemas.js';
import { kmsParams, pathOf, type KmsRouteConfig } from './kms-request.js';

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE' | 'HEAD' | 'PATCH';
const METHODS: readonly Method[] = ['GET', 'POST', 'PUT', 'DELETE', 'HEAD', 'PATCH'];

/** One method of a path: what it answers, with which status, and the schema of the answer. */
interface KeyRoute {
  readonly op: KmsRouteConfig['kmsOp'];
  readonly status?: number;
  readonly response?: object;
  handle(request: FastifyRequest, reply: FastifyReply, user: KmsUser): unknown;
}

/** The caller, authenticated by the request hook before any key route runs. */
function userOf(request: FastifyRequest): KmsUser {
  const user = request.kmsUser;
  if (user === undefined) throw new KmsRequestError('ERR_KMS_INTERNAL', 'key route reached without a user');
  return user;
}

function param(request: FastifyRequest, name: 'name' | 'versionName'): string {
  return (request.params as Record<string, string>)[name] as string;
}

/**
 * Registers `url` with a route per method in `routes` and a 405 route for every other method.
 * `fallbackOp` names the operation of the 405 answers (Hadoop's resource for that path).
 */
function serve(
  app: FastifyInstance,
  url: string,
  params: FastifySchema['params'],
  fallbackOp: KmsRouteConfig['kmsOp'],
  routes: Partial<Record<Method, KeyRoute>>,
): void {
  for (const method of METHODS) {
    const route = routes[method];
    const config: KmsRouteConfig = { kmsAuth: 'request', kmsOp: route?.op ?? fallbackOp };
    const schema: FastifySchema = {};
    if (params !== undefined) schema.params = params;
    if (route?.response !== undefined) schema.response = { [route.status ?? 200]: route.response };
    app.route({
      method,
      url,
      config,
      schema,
      // HEAD is a method no key path serves (405), not a body-less GET.
      exposeHeadRoute: false,
      handler:
        route === undefined
          ? (request) => {
              throw new KmsRequestError(
                'ERR_KMS_METHOD_NOT_ALLOWED',
                `HTTP method ${request.method} is not allowed on ${pathOf(request.originalUrl)}`,
              );
            }
          : (request, reply) => {
              const answer = (body: unknown): FastifyReply => {
                reply.code(route.status ?? 200);
                return body === undefined ? reply.send() : reply.send(body);
              };
              // Most key operations answer at once (the key store is in memory): only those that
              // wait (create, roll, delete) answer through a promise. A handler that has sent its
              // answer returns nothing: Fastify would send a returned reply a second time.
              const body = route.handle(request, reply, userOf(request));
              if (body instanceof Promise) return body.then(answer);
              answer(body);
              return undefined;
            },
    });
  }
}

/** Hadoop's resource names the operation of a `…/_eek` version request by its `eek_op`. */
const eekOpOf = (params: URLSearchParams): string =>
  params.get('eek_op') === 'reencrypt' ? 'REENCRYPT_EEK' : 'DECRYPT_EEK';

/**
 * The key operations under `/kms/v1`. Key names travel as one path segment: a name with `/` in it
 * reaches here with the slashes encoded (see `routableUrl`), and Fastify decodes the parameter.
 */
export function registerKeyRoutes(
  app: FastifyInstance,
  operations: KmsOperations,
  keyUrl: (request: FastifyRequest, name: string) => string,
): void {
  const S = KMS_RESPONSE_SCHEMAS;
  const key = nameParams('name');
  const version = nameParams('versionName');

  serve(app, '/kms/v1/keys', undefined, 'CREATE_KEY', {
    POST: {
      op: 'CREATE_KEY',
      status: 201,
      response: S.keyVersion,
      async handle(request, reply, user) {
        const created = await operations.createKey(user, request.body);
        // The name passed KmsInput (no lone surrogate), so encoding it cannot fail after the
        // key exists.
        reply.header('location', keyUrl(request, created.name));
        return created.version;
      },
    },
  });
  serve(app, '/kms/v1/keys/names', undefined, 'GET_KEYS', {
    GET: { op: 'GET_KEYS', response: S.names, handle: (_r, _p, user) => operations.getKeyNames(user) },
  });
  serve(app, '/kms/v1/keys/metadata', undefined, 'GET_KEYS_METADATA', {
    GET: {
      op: 'GET_KEYS_METADATA',
      response: S.metadataList,
      handle: (request, _p, user) => operations.getKeysMetadata(user, kmsParams(request).getAll('key')),
    },
  });
  serve(app, '/kms/v1/key/:name', key, 'ROLL_NEW_VERSION', {
    GET: {
      op: 'GET_METADATA',
      response: S.metadata,
      handle: (request, _p, user) => operations.getMetadata(user, param(request, 'name')),
    },
    DELETE: {
      op: 'DELETE_KEY',
      handle: (request, _p, user) => operations.deleteKey(user, param(request, 'name')),
    },
    POST: {
      op: 'ROLL_NEW_VERSION',
      response: S.keyVersion,
      handle: (request, _p, user) => operations.rolloverKey(user, param(request, 'name'), request.body),
    },
  });
  serve(app, '/kms/v1/key/:name/_metadata', key, 'GET_METADATA', {
    GET: {
      op: 'GET_METADATA',
      response: S.metadata,
      handle: (request, _p, user) => operations.getMetadata(user, param(request, 'name')),
    },
  });
  serve(app, '/kms/v1/key/:name/_currentversion', key, 'GET_CURRENT_KEY', {
    GET: {
      op: 'GET_CURRENT_KEY',
      response: S.keyVersion,
      handle: (request, _p, user) => operations.getCurrentVersion(user, param(request, 'name')),
    },
  });
  serve(app, '/kms/v1/key/:name/_versions', key, 'GET_KEY_VERSIONS', {
    GET: {
      op: 'GET_KEY_VERSIONS',
      response: S.keyVersions,
      handle: (request, _p, user) => operations.getKeyVersions(user, param(request, 'name')),
    },
  });
  serve(app, '/kms/v1/key/:name/_eek', key, 'GENERATE_EEK', {
    GET: {
      op: 'GENERATE_EEK',
      response: S.eeks,
      handle(request, _p, user) {
        const q = kmsParams(request);
        return operations.generateEeks(user, param(request, 'name'), q.get('eek_op'), q.get('num_keys'));
      },
    },
  });
  serve(app, '/kms/v1/key/:name/_invalidatecache', key, 'INVALIDATE_CACHE', {
    POST: {
      op: 'INVALIDATE_CACHE',
      handle: (request, _p, user) => operations.invalidateCache(user, param(request, 'name')),
    },
  });
  serve(app, '/kms/v1/key/:name/_reencryptbatch', key, 'REENCRYPT_EEK_BATCH', {
    POST: {
      op: 'REENCRYPT_EEK_BATCH',
      response: S.eeks,
      handle: (request, _p, user) => operations.reencryptBatch(user, param(request, 'name'), request.body),
    },
  });
  serve(app, '/kms/v1/keyversion/:versionName', version, 'GET_KEY_VERSION', {
    GET: {
      op: 'GET_KEY_VERSION',
      response: S.keyVersion,
      handle: (request, _p, user) => operations.getKeyVersion(user, param(request, 'versionName')),
    },
  });
  serve(app, '/kms/v1/keyversion/:versionName/_eek', version, eekOpOf, {
    POST: {
      op: eekOpOf,
      handle(request, reply, user) {
        const answer = operations.handleEek(
          user,
          param(request, 'versionName'),
          kmsParams(request).get('eek_op'),
          request.body,
        );
        // Two shapes on one path (decrypt answers a key version, reencrypt an EEK): serialized
        // by the schema of the one it is.
        const schema = answer.kind === 'decrypt' ? S.keyVersion : S.eek;
        reply.type('application/json; charset=utf-8');
        return reply.serializeInput(answer.value as unknown as Record<string, unknown>, schema);
      },
    },
  });
}

/** The key-path suffixes of `/kms/v1/key/<name>/<suffix>`. */
export const KEY_SUFFIXES: ReadonlySet<string> = new Set([
  '_metadata',
  '_currentversion',
  '_versions',
  '_eek',
  '_invalidatecache',
  '_reencryptbatch',
]);
const VERSION_SUFFIXES: ReadonlySet<string> = new Set(['_eek']);
const KEY_PREFIX = '/kms/v1/key/';
const VERSION_PREFIX = '/kms/v1/keyversion/';

/**
 * The URL the router sees. A key name may hold `/` (Hadoop's resource takes the rest of the
 * path, `{name:.*}`): `/kms/v1/key/a/b/_metadata` names key `a/b`, as `/kms/v1/key/a%2Fb/_metadata`
 * does. Those slashes are encoded here so the name is one path parameter; a name without a slash,
 * the common case, returns the URL as it came.
 */
export function routableUrl(url: string): string {
  let start: number;
  let suffixes: ReadonlySet<string>;
  if (url.startsWith(KEY_PREFIX)) {
    start = KEY_PREFIX.length;
    suffixes = KEY_SUFFIXES;
  } else if (url.startsWith(VERSION_PREFIX)) {
    start = VERSION_PREFIX.length;
    suffixes = VERSION_SUFFIXES;
  } else {
    return url;
  }
  const q = url.indexOf('?', start);
  const end = q === -1 ? url.length : q;
  // Runs on every request before routing: positions only, no slices, until a name has a slash.
  const first = url.indexOf('/', start);
  if (first === -1 || first >= end) return url;
  const last = url.lastIndexOf('/', end - 1);
  const nameEnd = suffixes.has(url.slice(last + 1, end)) ? last : end;
  if (first >= nameEnd) return url;
  return `${url.slice(0, start)}${url.slice(start, nameEnd).replaceAll('/', '%2F')}${url.slice(nameEnd)}`;
}
