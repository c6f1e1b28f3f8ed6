import type { Command } from 'commander';
import { jsonArgument, textArgument } from '../arguments.ts';
import { UsageError } from '../errors.ts';
import { clientFor } from '../http.ts';
import { emit, formatRecord, formatTable } from '../output.ts';
import { fetchPages, type PageOptions, pageOptions, positiveInt, withMore } from '../pages.ts';

interface Variable {
  name: string;
  required: boolean;
  default?: string;
}

interface Prompt {
  id: string;
  name: string;
  description: string | null;
  template: string;
  variables: Variable[];
  version: number;
  createdAt: string;
  updatedAt: string;
}

const promptPath = (id: string) => `/api/prompts/${encodeURIComponent(id)}`;

function variablesArgument(value: string): unknown[] {
  const parsed = jsonArgument(value);
  if (!Array.isArray(parsed))
    throw new UsageError('--variables takes a JSON array of {name, required?, default?}');
  return parsed;
}

/** `--var name=value`, repeated. */
function collectVar(value: string, previous: Record<string, string> = {}): Record<string, string> {
  const at = value.indexOf('=');
  if (at < 1) throw new UsageError(`--var takes name=value, got ${value}`);
  return { ...previous, [value.slice(0, at)]: value.slice(at + 1) };
}

const describeVariable = (v: Variable) =>
  `${v.name}${v.required ? '' : v.default !== undefined ? ` (default ${JSON.stringify(v.default)})` : ' (optional)'}`;

const showPrompt = (p: Prompt) =>
  [
    formatRecord([
      ['ID', p.id],
      ['Name', p.name],
      ['Version', p.version],
      ['Description', p.description],
      ['Variables', p.variables.map(describeVariable).join(', ')],
      ['Created', p.createdAt],
      ['Updated', p.updatedAt],
    ]),
    '',
    p.template,
  ].join('\n');

const promptRows = (prompts: Prompt[]) =>
  formatTable(prompts, [
    { header: 'ID', value: (p) => p.id },
    { header: 'VERSION', value: (p) => p.version },
    { header: 'NAME', value: (p) => p.name },
    { header: 'VARIABLES', value: (p) => p.variables.map((v) => v.name).join(' ') },
    { header: 'UPDATED', value: (p) => p.updatedAt },
  ]);

interface EditOptions {
  name?: string;
  description?: string;
  template?: string;
  variables?: unknown[];
}

const editBody = (options: EditOptions) =>
  Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) as Record<string, unknown>;

const editOptions = (command: Command) =>
  command
    .option('--description <text>', 'what the template is for')
    .option(
      '--template <text>',
      'the template, inline or @file, with {{variable}} placeholders',
      textArgument,
    )
    .option(
      '--variables <json>',
      'JSON array (inline or @file.json) of {name, required?, default?}; default: the placeholders',
      variablesArgument,
    );

/** `stk prompts list | get | create | update | render | versions`. */
export function registerPromptCommands(program: Command): void {
  const prompts = program.command('prompts').description("the organization's prompt templates");

  pageOptions(
    prompts.command('list').description('list templates (latest versions), oldest first'),
    'templates',
  ).action(async (options: PageOptions, command: Command) => {
    const page = await fetchPages<Prompt>(await clientFor(command), '/api/prompts', options);
    emit(command, page, () => withMore(promptRows(page.data), page.nextCursor));
  });

  prompts
    .command('get')
    .description('show a template: its latest version, or --version')
    .argument('<promptId>')
    .option('--version <n>', 'a version number', positiveInt)
    .action(async (id: string, options: { version?: number }, command: Command) => {
      const prompt = await (await clientFor(command)).get<Prompt>(promptPath(id), {
        version: options.version,
      });
      emit(command, prompt, () => showPrompt(prompt));
    });

  editOptions(
    prompts
      .command('create')
      .description('create a template (version 1)')
      .requiredOption('--name <name>', 'unique in the organization'),
  ).action(async (options: EditOptions, command: Command) => {
    if (options.template === undefined) throw new UsageError('--template is required');
    const prompt = await (await clientFor(command)).post<Prompt>('/api/prompts', editBody(options));
    emit(command, prompt, () => showPrompt(prompt));
  });

  editOptions(
    prompts
      .command('update')
      .description('make the next version (versions are immutable)')
      .argument('<promptId>')
      .option('--name <name>', 'a new name'),
  ).action(async (id: string, options: EditOptions, command: Command) => {
    const body = editBody(options);
    if (Object.keys(body).length === 0)
      throw new UsageError('give at least one of --name, --description, --template, --variables');
    const prompt = await (await clientFor(command)).patch<Prompt>(promptPath(id), body);
    emit(command, prompt, () => showPrompt(prompt));
  });

  prompts
    .command('render')
    .description('render a template with variables')
    .argument('<promptId>')
    .option('--var <name=value>', 'a variable (repeat)', collectVar)
    .option('--version <n>', 'a version number (default: the latest)', positiveInt)
    .action(
      async (id: string, options: { var?: Record<string, string>; version?: number }, command: Command) => {
        const answer = await (await clientFor(command)).post<{ text: string; version: number }>(
          `${promptPath(id)}/render`,
          { variables: options.var ?? {}, ...(options.version ? { version: options.version } : {}) },
        );
        emit(command, answer, () => answer.text);
      },
    );

  pageOptions(
    prompts.command('versions').description('list the versions of a template').argument('<promptId>'),
    'versions',
  ).action(async (id: string, options: PageOptions, command: Command) => {
    const page = await fetchPages<Prompt>(await clientFor(command), `${promptPath(id)}/versions`, options);
    emit(command, page, () => withMore(promptRows(page.data), page.nextCursor));
  });
}
