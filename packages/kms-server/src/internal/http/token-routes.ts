// The delegation-token operations as Fastify routes. Hadoop's authentication filter answers them
// on any path under /kms when `op=` names one, whatever else the path would serve; a router
// constraint derived from `op` sends such a request to these routes before any key route.
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { KmsRequestError } from '../../kms-errors.js';
import type { DelegationTokenOperation, TokenOperations } from '../operations/token-operations.js';
import { kmsParams, rawParams, type KmsRouteConfig } from './kms-request.js';

/** The delegation-token operations (`op=` values), with the HTTP method each requires. */
export const DELEGATION_TOKEN_OPERATIONS: Readonly<Record<DelegationTokenOperation, 'GET' | 'PUT'>> =
  Object.freeze({
    GETDELEGATIONTOKEN: 'GET',
    RENEWDELEGATIONTOKEN: 'PUT',
    CANCELDELEGATIONTOKEN: 'PUT',
  });

/** Whether `op` (a request's operation) is a delegation-token operation. */
export function isTokenOperation(op: string | undefined): op is DelegationTokenOperation {
  return op !== undefined && Object.hasOwn(DELEGATION_TOKEN_OPERATIONS, op);
}

const CONSTRAINT = 'kmsTokenOperation';

/** The token operation a request asks for: `op` (matched case-insensitively); never for OPTIONS. */
function tokenOperationOf(req: IncomingMessage): DelegationTokenOperation | undefined {
  if (req.method === 'OPTIONS' || req.url?.includes('?') !== true) return undefined;
  const op = rawParams(req).get('op')?.toUpperCase();
  return isTokenOperation(op) ? op : undefined;
}

/**
 * The router constraint: derived only for token operations, and then it must match, so a request
 * with `op=GETDELEGATIONTOKEN` on a key path reaches the token route of `/kms/*`, not the key route.
 */
export const TOKEN_OPERATION_CONSTRAINT = {
  name: CONSTRAINT,
  mustMatchWhenDerived: true,
  storage<H>() {
    const handlers = new Map<string, H>();
    return {
      get: (op: string): H | null => handlers.get(op) ?? null,
      set: (op: string, handler: H): void => void handlers.set(op, handler),
    };
  },
  deriveConstraint: (req: IncomingMessage) => tokenOperationOf(req),
  validate(value: unknown) {
    if (typeof value !== 'string' || !isTokenOperation(value))
      throw new Error(`not a token operation: ${String(value)}`);
  },
};

const ALL_METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'HEAD', 'PATCH'] as const;
const JSON_TYPE = 'application/json; charset=utf-8';
/**
 * The two fixed answers, written as JSON.stringify of `{ Token: { urlString } }` and `{ long }`
 * would write them (Hadoop's order, a newline after), without walking an object: JSON.stringify
 * of the one value escapes it.
 */
export const tokenAnswer = (urlString: string): string =>
  `{"Token":{"urlString":${JSON.stringify(urlString)}}}\n`;
export const longAnswer = (value: number): string => `{"long":${JSON.stringify(value)}}\n`;

/**
 * Registers the three token operations on `/kms` and `/kms/*`: the method each requires, with its
 * authentication (`login` for get and renew, `cancel` for cancel), and every other method with a
 * 400 answered before authentication, as Hadoop checks the method first. `scope` must leave
 * bodies unread: Hadoop's filter answers these requests before any resource reads one.
 */
export function registerTokenRoutes(scope: FastifyInstance, tokens: TokenOperations): void {
  const operations = Object.keys(DELEGATION_TOKEN_OPERATIONS) as DelegationTokenOperation[];
  for (const op of operations) {
    const required = DELEGATION_TOKEN_OPERATIONS[op];
    for (const url of ['/kms', '/kms/*']) {
      const auth: KmsRouteConfig['kmsAuth'] = op === 'CANCELDELEGATIONTOKEN' ? 'cancel' : 'login';
      scope.route({
        method: required,
        url,
        constraints: { [CONSTRAINT]: op },
        config: { kmsAuth: auth, kmsOp: op },
        exposeHeadRoute: false,
        handler: async (request, reply) => {
          const body = await answer(op, request, tokens);
          return body === undefined ? reply.send() : reply.type(JSON_TYPE).send(body);
        },
      });
      scope.route({
        method: ALL_METHODS.filter((m) => m !== required),
        url,
        constraints: { [CONSTRAINT]: op },
        config: { kmsAuth: 'none', kmsOp: op },
        exposeHeadRoute: false,
        handler: (request) => {
          throw new KmsRequestError(
            'ERR_KMS_BAD_REQUEST',
            `Wrong HTTP method [${request.method}] for operation [${op}], it should be [${required}]`,
          );
        },
      });
    }
  }
}

async function answer(
  op: DelegationTokenOperation,
  request: FastifyRequest,
  tokens: TokenOperations,
): Promise<string | undefined> {
  const params = kmsParams(request);
  const token = params.get('token') ?? undefined;
  switch (op) {
    case 'GETDELEGATIONTOKEN': {
      const urlString = await tokens.getDelegationToken(callerOf(request), {
        renewer: params.get('renewer') ?? undefined,
        service: params.get('service') ?? undefined,
      });
      return tokenAnswer(urlString);
    }
    case 'RENEWDELEGATIONTOKEN':
      return longAnswer(await tokens.renewDelegationToken(callerOf(request), token));
    case 'CANCELDELEGATIONTOKEN':
      await tokens.cancelDelegationToken(request.kmsUser, token);
      return undefined;
  }
}

function callerOf(request: FastifyRequest): NonNullable<FastifyRequest['kmsUser']> {
  const user = request.kmsUser;
  if (user === undefined) throw new KmsRequestError('ERR_KMS_INTERNAL', 'token route reached without a user');
  return user;
}
