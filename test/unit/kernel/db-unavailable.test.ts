import Fastify from 'fastify';
import pg from 'pg';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { freePort } from '../../../src/db/embedded.ts';
import { isDatabaseUnavailable } from '../../../src/db/unavailable.ts';
import { errorHandler } from '../../../src/http/problem.ts';

const test = suite('database unavailable: which errors, and the 503 they answer');

/** An error as pg reports one from the server: a message and its SQLSTATE. */
const serverError = (code: string, message = 'from the server') =>
  Object.assign(new Error(message), { code });

const UNAVAILABLE: [string, unknown][] = [
  ['57P01 admin shutdown', serverError('57P01', 'terminating connection due to administrator command')],
  ['57P02 crash shutdown', serverError('57P02')],
  ['57P03 cannot connect now', serverError('57P03', 'the database system is starting up')],
  ['57014 statement timeout', serverError('57014', 'canceling statement due to statement timeout')],
  ['53300 too many connections', serverError('53300')],
  ['08006 connection failure', serverError('08006')],
  ['08001 unable to connect', serverError('08001')],
  ['08P01 protocol violation', serverError('08P01')],
  ['ECONNREFUSED', Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })],
  ['ECONNRESET', Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' })],
  [
    'ECONNREFUSED on every address',
    new AggregateError([Object.assign(new Error('refused'), { code: 'ECONNREFUSED' })], ''),
  ],
  ['connection terminated', new Error('Connection terminated unexpectedly')],
  ['connect timeout', new Error('Connection terminated due to connection timeout')],
  ['pool wait timeout', new Error('timeout exceeded when trying to connect')],
  ['broken client', new Error('Client has encountered a connection error and is not queryable')],
];

const OTHERS: [string, unknown][] = [
  ['unique violation', serverError('23505', 'duplicate key value violates unique constraint')],
  ['syntax error', serverError('42601')],
  ['serialization failure', serverError('40001')],
  ['a plain error', new Error('something else')],
  ['a string', 'Connection terminated unexpectedly'],
  ['nothing', undefined],
];

for (const [name, error] of UNAVAILABLE)
  test(`${name} is the database being unavailable`, () => assert.ok(isDatabaseUnavailable(error)));
for (const [name, error] of OTHERS) test(`${name} is not`, () => assert.not.ok(isDatabaseUnavailable(error)));

test('a real refused connection is recognised', async () => {
  const client = new pg.Client({ host: '127.0.0.1', port: await freePort(), connectionTimeoutMillis: 5000 });
  client.on('error', () => {});
  const error = await client.connect().then(
    () => undefined,
    (e: unknown) => e,
  );
  assert.ok(error, 'connected to a closed port');
  assert.ok(isDatabaseUnavailable(error), String(error));
});

async function answerTo(error: unknown) {
  const app = Fastify();
  app.setErrorHandler(errorHandler);
  app.get('/boom', async () => {
    throw error;
  });
  try {
    return await app.inject({ method: 'GET', url: '/boom' });
  } finally {
    await app.close();
  }
}

for (const [name, error] of UNAVAILABLE.slice(0, 4).concat(UNAVAILABLE.slice(-4)))
  test(`${name} answers 503 unavailable with Retry-After, naming no host`, async () => {
    const res = await answerTo(error);
    assert.is(res.statusCode, 503);
    assert.is(res.headers['content-type'], 'application/problem+json; charset=utf-8');
    assert.is(res.headers['retry-after'], '2');
    const body = res.json();
    assert.is(body.code, 'unavailable');
    assert.is(body.status, 503);
    assert.not.match(res.body, /127\.0\.0\.1|5432|terminat|timeout/i);
  });

test('any other error is still a 500', async () => {
  const res = await answerTo(serverError('42601'));
  assert.is(res.statusCode, 500);
  assert.is(res.json().code, 'internal');
  assert.is(res.headers['retry-after'], undefined);
});

test.run();
