import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import { operators } from '../auth/operators.ts';
import type { ServiceDeps } from '../deps.ts';
import { AppError } from '../errors.ts';
import { installAccessControl } from './access-hook.ts';
import { edgeOptions, expectationHandler, requestIdOf, requireHost } from './edge.ts';
import { registerHealthRoutes } from './health.ts';
import { installIdempotency } from './idempotency.ts';
import { installInputGuard } from './input-guard.ts';
import { openapiOptions } from './openapi.ts';
import { errorHandler, problemOf, sendProblem } from './problem.ts';
import { type RouteModule, typed, type ZodApp } from './routes.ts';

/** A hop count becomes fastify's trust function; booleans and address lists pass as they are. */
function trustProxyOption(setting: boolean | number | string) {
  return typeof setting === 'number' ? (_address: string, hop: number) => hop < setting : setting;
}

/**
 * The API reads JSON bodies only. Fastify's own text/plain parser goes, so such a body is a 415 like
 * any other type (the content sync endpoint reads every body as text in a scope of its own). Its JSON
 * parser stays, guard against prototype poisoning included; but a body it refuses that is JSON all
 * the same was refused for a `__proto__` or `constructor.prototype` key, and is told so.
 */
function installBodyParsers(app: FastifyInstance) {
  app.removeContentTypeParser('text/plain');
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    parseJson(request, body as string, (error, value) => {
      if (error && isJson(body as string)) done(poisonedJson(), undefined);
      else done(error, value);
    });
  });
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

const poisonedJson = () =>
  new AppError(
    'malformed_json',
    'The request body has a "__proto__" or "constructor.prototype" key, which is refused.',
  );

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * Every answer of the route, errors included, carries `Cache-Control: no-store` (the secrets routes,
     * and the webhook routes that show a signing secret): set in the app's first request hook, before
     * access control can answer 401 or 403.
     */
    noStore?: boolean;
  }
}

function installNoStore(app: FastifyInstance) {
  app.addHook('onRequest', async (request, reply) => {
    if (request.routeOptions.config.noStore) reply.header('cache-control', 'no-store');
  });
}

export async function buildApp(deps: ServiceDeps, routes: readonly RouteModule[]): Promise<ZodApp> {
  const app = typed(
    Fastify({
      loggerInstance: deps.logger as FastifyBaseLogger,
      // Our own onResponse hook writes the one line per request.
      logController: new LogController({ disableRequestLogging: true }),
      bodyLimit: 1024 * 1024,
      // Article slugs run to 200 characters (the default limit, 100, would answer 414 to /blog/<slug>).
      routerOptions: { maxParamLength: 256 },
      trustProxy: trustProxyOption(deps.config.TRUST_PROXY),
      ...edgeOptions(deps.config, deps.logger),
      requestIdHeader: false,
      genReqId: (req) => requestIdOf(deps.config.TRUST_PROXY, req),
    }),
  );
  app.server.on('checkExpectation', expectationHandler(deps.config, deps.logger));
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.setErrorHandler(errorHandler);
  installBodyParsers(app);
  installInputGuard(app);
  // First of the app's hooks: the header is on whatever answer comes, the access control's included.
  installNoStore(app);
  app.setNotFoundHandler((request, reply) =>
    sendProblem(
      reply,
      problemOf('route_not_found', `No route for ${request.method} ${request.url.split('?')[0]}`, request.id),
    ),
  );

  // On close, a response still in flight tells its client to hang up: a keep-alive connection would
  // otherwise hold the server, and the shutdown, open until its idle timeout.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onSend', async (_request, reply) => {
    if (closing) reply.header('connection', 'close');
  });

  // One log line per request, with its id; headers are not logged at all.
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  // Before access control: a request that is not valid HTTP/1.1 is refused whatever its key.
  app.addHook('onRequest', requireHost);
  app.addHook('onResponse', async (request, reply) => {
    request.log.info(
      {
        method: request.method,
        url: request.url.split('?')[0],
        route: request.routeOptions.url,
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime * 10) / 10,
      },
      'request',
    );
  });
  // Instead of fastify's own 503 body (return503OnClosing is off): a request that arrives on an open
  // connection while the app closes is told so in a problem, and the connection closes after it.
  app.addHook('onRequest', async () => {
    if (closing) throw new AppError('unavailable', 'The service is shutting down; retry the request.');
  });

  // The OpenAPI document (src/http/openapi.ts): 3.1, each route's own declarations, what holds by kind.
  await app.register(swagger, openapiOptions(app, deps.config.SITE_URL));
  app.addHook('onRoute', (route) => {
    // The documentation UI's own asset routes come from the plugin; they are public by nature.
    if (route.url.startsWith('/docs')) route.config = { ...(route.config as object), access: 'public' };
  });
  // Operator routes (the console, /admin) take a session of src/auth/operators.ts, never an API key.
  installAccessControl(app, deps.authenticate, (token) => operators.session(deps.pool, token));
  // After access control's: every POST route honours Idempotency-Key, or refuses it (src/http/idempotency.ts).
  installIdempotency(app, deps);
  await app.register(swaggerUi, { routePrefix: '/docs' });

  app.get('/openapi.json', { config: { access: 'public' }, schema: { hide: true } }, async () =>
    app.swagger(),
  );
  registerHealthRoutes(app, deps);
  for (const register of routes) await register(app, deps);
  return app;
}
