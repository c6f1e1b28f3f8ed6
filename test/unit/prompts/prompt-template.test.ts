import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  carriedVariables,
  MAX_RENDERED_CHARS,
  renderTemplate,
  templateVariables,
} from '../../../src/domain/prompts/template.ts';

const paths = (result: { ok: boolean; errors?: { path: string }[] }) =>
  (result.ok ? [] : (result.errors ?? []).map((e) => e.path)).sort();
const messages = (result: { ok: boolean; errors?: { message: string }[] }) =>
  result.ok ? [] : (result.errors ?? []).map((e) => e.message);

test('no variables declared: one required variable per distinct placeholder, in order', () => {
  const result = templateVariables('Hi {{ name }}, about {{company}} and {{name}} again');
  assert.equal(result, {
    ok: true,
    value: [
      { name: 'name', required: true },
      { name: 'company', required: true },
    ],
  });
  assert.equal(templateVariables('no placeholders'), { ok: true, value: [] });
});

test('declared: required follows the default unless given; a declared unused or an undeclared placeholder is named', () => {
  assert.equal(
    templateVariables('{{a}} {{b}} {{c}}', [
      { name: 'a' },
      { name: 'b', default: 'x' },
      { name: 'c', required: false },
    ]),
    {
      ok: true,
      value: [
        { name: 'a', required: true },
        { name: 'b', required: false, default: 'x' },
        { name: 'c', required: false },
      ],
    },
  );
  const unused = templateVariables('{{a}}', [{ name: 'a' }, { name: 'ghost' }]);
  assert.equal(paths(unused), ['variables[1].name']);
  assert.match(messages(unused)[0]!, /ghost is not used by the template/);
  const undeclared = templateVariables('{{a}} {{b}} {{c}}', [{ name: 'a' }]);
  assert.equal(paths(undeclared), ['template', 'template']);
  assert.equal(messages(undeclared), [
    '{{b}} is not declared in variables',
    '{{c}} is not declared in variables',
  ]);
  assert.equal(paths(templateVariables('{{a}}', [{ name: 'a' }, { name: 'a' }])), ['variables[1].name']);
  assert.equal(paths(templateVariables('{{a}}', [{ name: 'a', required: true, default: 'x' }])), [
    'variables[0].required',
  ]);
});

test('a placeholder that is not a variable name is refused, declared or not', () => {
  for (const template of ['{{secrets.key}}', '{{1st}}', '{{a-b}}', '{{}}', '{{ two words }}']) {
    assert.equal(paths(templateVariables(template)), ['template'], template);
  }
});

test('a new template keeps the declarations it still uses; its new placeholders are required', () => {
  const previous = [
    { name: 'a', required: false, default: 'A' },
    { name: 'gone', required: true },
  ];
  assert.equal(carriedVariables('{{a}} {{new}}', previous), [
    { name: 'a', required: false, default: 'A' },
    { name: 'new', required: true },
  ]);
});

test('render: values, then defaults, then nothing for an optional variable', () => {
  const variables = [
    { name: 'who', required: true },
    { name: 'tone', required: false, default: 'warm' },
    { name: 'extra', required: false },
  ];
  assert.equal(
    renderTemplate('Dear {{ who }}, a {{tone}} note.{{extra}} {{who}}', variables, { who: 'Ada' }),
    {
      ok: true,
      value: 'Dear Ada, a warm note. Ada',
    },
  );
  assert.equal(renderTemplate('{{who}} {{tone}}', variables, { who: 42, tone: false }), {
    ok: true,
    value: '42 false',
  });
  // A value holding a placeholder is inserted as it is, not rendered again.
  assert.equal(renderTemplate('{{who}}', variables, { who: '{{tone}}' }), { ok: true, value: '{{tone}}' });
});

test('render: each missing required and each unknown variable is named', () => {
  const variables = [
    { name: 'a', required: true },
    { name: 'b', required: true },
    { name: 'c', required: false, default: 'C' },
  ];
  const result = renderTemplate('{{a}}{{b}}{{c}}', variables, { b: 'x', nope: 'y', also: 'z' });
  assert.equal(paths(result), ['variables.a', 'variables.also', 'variables.nope']);
});

test('render: an output over MAX_RENDERED_CHARS is tooLarge, naming the heaviest variable, and never built', () => {
  const variables = [
    { name: 'v', required: true },
    { name: 'w', required: false, default: 'ww' },
  ];
  const template = `${'{{v}}'.repeat(19_999)}{{w}}`;
  // The probe's case: 20,000 placeholders and a 10,000-character value (a 200 MB answer), and a
  // 30,000-character one (RangeError: Invalid string length, a 500).
  for (const value of ['x'.repeat(10_000), 'x'.repeat(30_000)]) {
    const started = performance.now();
    const result = renderTemplate(template, variables, { v: value });
    assert.ok(!result.ok && result.tooLarge, 'too large');
    assert.equal(paths(result), ['variables.v']);
    assert.match(
      !result.ok ? result.errors[0]!.message : '',
      /\{\{v\}\} \(19999 times\) makes the text [\d,]+ characters long, over the 2,000,000/,
    );
    assert.ok(performance.now() - started < 500, 'counted, not built');
  }
  // Up to the bound the text is rendered.
  const at = renderTemplate('{{v}}'.repeat(20_000), variables.slice(0, 1), { v: 'x'.repeat(100) });
  assert.ok(at.ok && at.value.length === MAX_RENDERED_CHARS);
  const over = renderTemplate('{{v}}'.repeat(20_000), variables.slice(0, 1), { v: 'x'.repeat(101) });
  assert.ok(!over.ok && over.tooLarge);
});

test.run();
