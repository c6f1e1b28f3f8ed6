/**
 * Issue 34, item 8: how a value is written in an http_request's URL depends on the part of the URL
 * its placeholder is in (docs/runs.md, "http_request"): the base as it is, a host with only its
 * delimiters encoded (so `host:port` is a host and a port), everything else percent-encoded.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { encodeForUrlPart, urlPartAt } from '../../../processes/runs/executors/url-template.ts';

const test = suite('http_request URL templates: the part each placeholder fills, and its encoding');

test('where each placeholder lands, read from the template alone', () => {
  const at = (template: string, placeholder: string) => urlPartAt(template, template.indexOf(placeholder));
  const t = 'https://{{user}}:{{pass}}@{{host}}:{{port}}/a/{{seg}}?x={{q}}#{{frag}}';
  assert.equal(
    ['{{user}}', '{{pass}}', '{{host}}', '{{port}}', '{{seg}}', '{{q}}', '{{frag}}'].map((p) => at(t, p)),
    ['userinfo', 'userinfo', 'host', 'host', 'path', 'query', 'fragment'],
  );
  assert.is(at('{{base}}/x', '{{base}}'), 'base');
  assert.is(at('{{base}}/x?{{q}}', '{{q}}'), 'query');
  assert.is(at('{{base}}/{{p}}', '{{p}}'), 'path');
  // A value is opaque: a `/` or `?` inside another placeholder does not end the authority.
  assert.is(at('http://{{a}}{{b}}/x', '{{b}}'), 'host');
  assert.is(at('http://{{ host }}', '{{ host }}'), 'host');

  assert.is(encodeForUrlPart('127.0.0.1:8080', 'host'), '127.0.0.1:8080');
  assert.is(encodeForUrlPart('[::1]:8080', 'host'), '[::1]:8080');
  assert.is(encodeForUrlPart('bücher.example', 'host'), 'bücher.example');
  assert.is(encodeForUrlPart('a/b?c#d@e\\f g', 'host'), 'a%2Fb%3Fc%23d%40e%5Cf%20g');
  assert.is(encodeForUrlPart('a:b@c', 'userinfo'), 'a%3Ab%40c');
  assert.is(encodeForUrlPart('../a b', 'path'), '..%2Fa%20b');
  assert.is(encodeForUrlPart('https://h/x', 'base'), 'https://h/x');
});

test.run();
