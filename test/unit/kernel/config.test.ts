import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ConfigError, loadConfig } from '../../../src/config.ts';

const test = suite('config');

function refusal(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    assert.instance(error, ConfigError);
    return error as ConfigError;
  }
  throw new Error(`accepted ${JSON.stringify(env)}`);
}

test('defaults: embedded database, PostgreSQL event store, loopback on 3000', () => {
  const config = loadConfig({});
  assert.is(config.PORT, 3000);
  assert.is(config.HOST, '127.0.0.1');
  assert.is(config.LOG_LEVEL, 'info');
  assert.is(config.DATA_DIR, './.data');
  assert.is(config.DATABASE_URL, undefined);
  assert.is(config.EVENTSTORE_URL, undefined);
  assert.is(config.CONTENT_API_URL, undefined);
  assert.is(config.CONTENT_API_KEY, undefined);
  assert.is(config.CRON_SECRET, undefined);
  assert.is(config.CONTENT_PROVIDER, 'content');
  assert.is(config.SITE_URL, 'http://localhost:3000');
  assert.is(config.SHUTDOWN_TIMEOUT_MS, 10_000);
  assert.is(config.REQUEST_TIMEOUT_MS, 30_000);
  assert.is(config.KEEP_ALIVE_TIMEOUT_MS, 72_000);
});

test('a blank variable counts as unset', () => {
  const config = loadConfig({
    PORT: '',
    HOST: '  ',
    DATA_DIR: '',
    DATABASE_URL: '',
    BOOTSTRAP_RATE_LIMIT: '',
  });
  assert.is(config.PORT, 3000);
  assert.is(config.HOST, '127.0.0.1');
  assert.is(config.DATA_DIR, './.data');
  assert.is(config.DATABASE_URL, undefined);
  assert.is(config.BOOTSTRAP_RATE_LIMIT, 10);
});

test('good values are parsed into their types', () => {
  const config = loadConfig({
    PORT: '8080',
    LOG_LEVEL: 'debug',
    DATABASE_URL: 'postgresql://app:pw@db:5432/stk',
    EVENTSTORE_URL: 'esdb+discover://node1:2113?tls=false',
    CONTENT_API_URL: 'https://content.example/api',
    CONTENT_PROVIDER: 'my-cms',
    SHUTDOWN_TIMEOUT_MS: '2500',
    REQUEST_TIMEOUT_MS: '5000',
    KEEP_ALIVE_TIMEOUT_MS: '65000',
  });
  assert.is(config.PORT, 8080);
  assert.is(config.LOG_LEVEL, 'debug');
  assert.is(config.DATABASE_URL, 'postgresql://app:pw@db:5432/stk');
  assert.is(config.EVENTSTORE_URL, 'esdb+discover://node1:2113?tls=false');
  assert.is(config.CONTENT_PROVIDER, 'my-cms');
  assert.is(config.SHUTDOWN_TIMEOUT_MS, 2500);
  assert.is(config.REQUEST_TIMEOUT_MS, 5000);
  assert.is(config.KEEP_ALIVE_TIMEOUT_MS, 65_000);
});

test('CONTENT_KINDS: blog by default, always served; a list is trimmed and deduplicated', () => {
  assert.equal(loadConfig({}).CONTENT_KINDS, ['blog']);
  assert.equal(loadConfig({ CONTENT_KINDS: '' }).CONTENT_KINDS, ['blog']);
  assert.equal(loadConfig({ CONTENT_KINDS: ' news , guides,news,' }).CONTENT_KINDS, [
    'blog',
    'news',
    'guides',
  ]);
  assert.equal(loadConfig({ CONTENT_KINDS: 'news,blog' }).CONTENT_KINDS, ['blog', 'news']);
});

// [variable, bad value, what the message must say the expected form is]
const badValues: [string, string, RegExp][] = [
  ['PORT', 'abc', /expected number/],
  ['PORT', '70000', /<=65535/],
  ['PORT', '3.5', /expected int/],
  ['LOG_LEVEL', 'loud', /expected one of .*"info"/],
  ['DATABASE_URL', 'mysql://db/stk', /expected a postgres:\/\/ URL/],
  ['DATABASE_URL', 'not a url', /expected a postgres:\/\/ URL/],
  ['EVENTSTORE_URL', 'http://esdb:2113', /expected an esdb:\/\/ URL/],
  ['CONTENT_API_URL', 'ftp://content.example', /expected an http\(s\) URL/],
  ['CONTENT_API_URL', 'content.example', /expected an http\(s\) URL/],
  ['SITE_URL', 'ftp://site.example', /expected an http\(s\) URL/],
  ['CONTENT_PROVIDER', 'My CMS', /lower-case path segment/],
  ['CONTENT_KINDS', 'news,Blog Posts', /comma-separated list of kinds/],
  ['CONTENT_KINDS', 'news,../etc', /comma-separated list of kinds/],
  ['BOOTSTRAP_RATE_LIMIT', '-1', />0/],
  ['SYNC_RATE_LIMIT', 'many', /expected number/],
  ['SHUTDOWN_TIMEOUT_MS', '0', />0/],
  ['REQUEST_TIMEOUT_MS', '0', />0/],
  ['REQUEST_TIMEOUT_MS', '1.5', /expected int/],
  ['KEEP_ALIVE_TIMEOUT_MS', 'forever', /expected number/],
];

for (const [name, value, form] of badValues) {
  test(`${name}=${JSON.stringify(value)} is refused, naming the variable and the expected form`, () => {
    const error = refusal({ [name]: value });
    assert.is(error.issues.length, 1);
    const issue = error.issues[0]!;
    assert.ok(issue.startsWith(`${name}: `), issue);
    assert.match(issue, form);
    assert.match(error.message, `- ${name}: `);
  });
}

test('every bad variable is named at once', () => {
  const error = refusal({ PORT: 'x', LOG_LEVEL: 'loud', SITE_URL: 'nope' });
  assert.equal(error.issues.map((i) => i.split(':')[0]).sort(), ['LOG_LEVEL', 'PORT', 'SITE_URL']);
});

test('a plain bad value is echoed to help the operator', () => {
  assert.match(refusal({ LOG_LEVEL: 'loud' }).message, '(got "loud")');
});

test('secret values and URLs (which may hold credentials) are never echoed', () => {
  const error = refusal({
    DATABASE_URL: 'mysql://admin:hunter2-db@db/stk',
    EVENTSTORE_URL: 'http://admin:hunter2-esdb@esdb:2113',
    CONTENT_API_URL: 'ftp://user:hunter2-content@content.example',
    SITE_URL: 'ftp://user:hunter2-site@site.example',
    // Valid secrets beside a bad value must not show up either.
    CONTENT_API_KEY: 'hunter2-key',
    CRON_SECRET: 'hunter2-cron',
    METRICS_TOKEN: 'hunter2-metrics',
    PORT: 'nope',
  });
  assert.is(error.issues.length, 5);
  assert.not.match(error.message, 'hunter2');
  for (const name of ['DATABASE_URL', 'EVENTSTORE_URL', 'CONTENT_API_URL', 'SITE_URL', 'PORT'])
    assert.match(error.message, `${name}: `);
});

test('outbound targets: private networks refused unless ALLOW_PRIVATE_NETWORK_TARGETS=true', () => {
  assert.is(loadConfig({}).ALLOW_PRIVATE_NETWORK_TARGETS, false);
  assert.is(loadConfig({}).OUTBOUND_RATE_PER_HOST, 10);
  assert.is(loadConfig({ ALLOW_PRIVATE_NETWORK_TARGETS: 'true' }).ALLOW_PRIVATE_NETWORK_TARGETS, true);
  assert.is(loadConfig({ ALLOW_PRIVATE_NETWORK_TARGETS: 'false' }).ALLOW_PRIVATE_NETWORK_TARGETS, false);
  assert.match(
    refusal({ ALLOW_PRIVATE_NETWORK_TARGETS: 'yes' }).message,
    /ALLOW_PRIVATE_NETWORK_TARGETS: expected true or false/,
  );
  assert.match(refusal({ OUTBOUND_RATE_PER_HOST: '0' }).message, /OUTBOUND_RATE_PER_HOST/);
});

test.run();
