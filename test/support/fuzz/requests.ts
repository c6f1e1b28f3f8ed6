import fc from 'fast-check';
import { BAD_TEXT, type BodyCase, bodyCases, PROTO_KEYS } from './mutations.ts';
import type { Operation } from './operations.ts';
import type { RawRequest } from './raw-http.ts';
import { anyJson, type schemaValues } from './schema-values.ts';

/** What exists in the service under test, so that generated requests can name real things. */
export interface Fixtures {
  /** Path parameter or header name -> real values (ids of existing objects, a column's ETag). */
  real: Record<string, readonly string[]>;
  /** Authorization choices: a key holding every scope, none, and the service's other secrets. */
  credentials: readonly { weight: number; headers: readonly [string, string][] }[];
  /** Valid values of the document's other schemas, swapped into bodies. */
  otherValues: fc.Arbitrary<unknown>;
}

export interface FuzzRequest extends RawRequest {
  label: string;
}

const hex = (byte: number) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;

/**
 * Percent-encoding of any JS string: a lone surrogate, which encodeURIComponent refuses, goes as its
 * three generalized UTF-8 bytes (what a careless client sends), so the server has to decode it.
 */
export function encodeText(text: string): string {
  let out = '';
  for (const char of text) {
    const code = char.codePointAt(0) as number;
    if (code >= 0xd800 && code <= 0xdfff)
      out += [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)].map(hex).join('');
    else out += encodeURIComponent(char);
  }
  return out;
}

/** Odd things in a URL, already encoded: refused text, prototype keys, overlong and malformed ones. */
const URL_CLASSES = [
  ...BAD_TEXT.map(encodeText),
  ...PROTO_KEYS,
  'x'.repeat(300),
  'x'.repeat(20_000),
  '%E0%A4%A',
  '%',
  '%zz',
  '..',
  '%2e%2e',
  'a%2Fb',
  '%20',
  encodeText('\u00e9\ud83d\ude00'),
  '',
  '-1',
  '1e400',
  'null',
  '[]',
  '%7B%7D',
];
const urlClass = fc.constantFrom(...URL_CLASSES);
const someId = fc.oneof(fc.uuid(), fc.stringMatching(/^[A-Za-z0-9_-]{1,40}$/)).map(encodeText);

/** Header values a client may send: the bytes of a NUL, a lone surrogate, too much, nothing. */
const HEADER_CLASSES = [
  '',
  '*',
  'W/"x"',
  '"0"',
  'a\u0000b',
  '\ud800',
  '\u00e9',
  'x'.repeat(20_000),
  '__proto__',
];

type Values = ReturnType<typeof schemaValues>;
type Param = Operation['params'][number];

/** A parameter value that names something real or satisfies its schema. */
function validParam(values: Values, fixtures: Fixtures, param: Param, encode: (s: string) => string) {
  const real = fixtures.real[param.name] ?? [];
  const fromSchema = values.arbitraryOf(param.schema).map((v) => encode(String(v)));
  return real.length > 0
    ? fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...real).map(encode) }, fromSchema)
    : fromSchema;
}

/** A parameter value of any class: valid, made up, refused, overlong, malformed. */
function hostileParam(values: Values, fixtures: Fixtures, param: Param, encode: (s: string) => string) {
  return fc.oneof(
    validParam(values, fixtures, param, encode),
    { weight: 2, arbitrary: param.in === 'header' ? fc.constantFrom(...HEADER_CLASSES) : urlClass },
    ...(param.in === 'path' ? [someId] : []),
  );
}

/** Query pairs beyond the documented ones: unknown, prototype, bracketed and refused keys. */
const extraQuery = fc.array(
  fc.tuple(
    fc.constantFrom('fuzz', 'a[b][c]', 'page[]', ...PROTO_KEYS, ...BAD_TEXT.map(encodeText)),
    fc.oneof(urlClass, fc.constant('1')),
  ),
  { minLength: 1, maxLength: 2 },
);

/** A fresh client address each time: the per-address rate limits must not hide the routes. */
const clientAddress = fc.ipV4().map((address) => [['x-forwarded-for', address]] as [string, string][]);

/** Header values worth sending to any header, besides the classes above. */
const ODD_VALUES = [
  'text/html',
  'application/json',
  '::::',
  '10.0.0.1, nonsense',
  'gzip',
  'bytes=5-1',
  'nonsense',
];

/**
 * Headers besides the credentials: request ids, caching, ranges, addresses, expectations, and ones
 * the parser refuses; or the Host header missing, empty or twice.
 */
type MiscHeaders = { headers: [string, string][]; host?: string | null };
const oddHeaders: fc.Arbitrary<MiscHeaders> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .tuple(
        fc.constantFrom(
          'x-request-id',
          'accept',
          'if-none-match',
          'if-modified-since',
          'range',
          'expect',
          'content-encoding',
          'cookie',
          'x-forwarded-for',
          'x-fuzz',
        ),
        fc.constantFrom(...HEADER_CLASSES, ...ODD_VALUES),
        clientAddress,
      )
      .map(([name, value, address]) => ({
        headers: [...(name === 'x-forwarded-for' ? [] : address), [name, value]] as [string, string][],
      })),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom<string | null>(null, '', 'a\u0000b', 'x'.repeat(300)), clientAddress)
      .map(([host, address]) => ({ headers: address, host })),
  },
);

export const methodTakesBody = (method: string) => ['POST', 'PUT', 'PATCH'].includes(method);
const NO_BODY: BodyCase = { label: 'no body', contentType: null };

/** Where a request is hostile: one part at a time (the rest valid, so it reaches deep), or all at once. */
type Focus = 'none' | 'path' | 'query' | 'headers' | 'body' | 'all';

/**
 * Generated requests for one operation: its parameters, credentials, headers and a body case. Given
 * `bodies`, every request has a hostile body drawn from it and the rest valid.
 */
export function requestsFor(
  op: Operation,
  values: Values,
  fixtures: Fixtures,
  bodies?: (valid: fc.Arbitrary<unknown>) => fc.Arbitrary<BodyCase>,
): fc.Arbitrary<FuzzRequest> {
  const has = (where: Param['in']) => op.params.some((p) => p.in === where);
  const params = (where: Param['in'], hostile: boolean, encode: (s: string) => string) =>
    fc.tuple(
      ...op.params
        .filter((p) => p.in === where)
        .map((p) => {
          const value = (hostile ? hostileParam : validParam)(values, fixtures, p, encode);
          return (p.required ? value : fc.option(value, { freq: 3 })).map((v) => [p.name, v] as const);
        }),
    );
  const bodySchema = op.body ? values.arbitraryOf(op.body) : anyJson;
  const takesBody = methodTakesBody(op.method);
  const validBody: fc.Arbitrary<BodyCase> = takesBody
    ? bodySchema.map((v) => ({ label: 'valid', text: JSON.stringify(v) }))
    : fc.constant(NO_BODY);
  const credentials = fc.oneof(
    ...fixtures.credentials.map((c) => ({ weight: c.weight, arbitrary: fc.constant(c.headers) })),
  );
  const focus = bodies
    ? fc.constant<Focus>('body')
    : fc.oneof(
        { weight: 2, arbitrary: fc.constant<Focus>('none') },
        { weight: has('path') ? 2 : 0, arbitrary: fc.constant<Focus>('path') },
        { weight: 1, arbitrary: fc.constant<Focus>('query') },
        { weight: 1, arbitrary: fc.constant<Focus>('headers') },
        { weight: takesBody ? 5 : 1, arbitrary: fc.constant<Focus>('body') },
        { weight: 1, arbitrary: fc.constant<Focus>('all') },
      );

  return focus.chain((f) => {
    const hostile = (part: Focus) => f === part || f === 'all';
    return fc
      .record({
        path: params('path', hostile('path'), encodeText),
        query: params('query', hostile('query'), encodeText),
        extraQuery: hostile('query') ? extraQuery : fc.constant([]),
        header: params('header', hostile('headers'), (s) => s),
        credentials,
        misc: hostile('headers') ? oddHeaders : clientAddress.map((headers): MiscHeaders => ({ headers })),
        body: !hostile('body')
          ? validBody
          : bodies
            ? bodies(bodySchema)
            : bodyCases(bodySchema, fixtures.otherValues),
      })
      .map(({ path, query, extraQuery, header, credentials, misc, body }) => {
        let target = op.path;
        for (const [name, value] of path) target = target.replace(`{${name}}`, value ?? '');
        const pairs = [...query.filter(([, v]) => v !== null), ...extraQuery].map(([k, v]) => `${k}=${v}`);
        if (pairs.length > 0) target += `?${pairs.join('&')}`;
        const headers: [string, string][] = [...credentials, ...misc.headers];
        for (const [name, value] of header) if (value !== null) headers.push([name, value]);
        if (body.contentType !== null) headers.push(['content-type', body.contentType ?? 'application/json']);
        const label = f === 'body' ? body.label : f === 'none' ? 'valid' : `${f} hostile, body ${body.label}`;
        return {
          method: op.method,
          target,
          headers,
          host: misc.host,
          body: body.text,
          bodyEncoding: body.encoding,
          label,
        };
      });
  });
}
