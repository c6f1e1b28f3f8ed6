import { randomUUID } from 'node:crypto';
import type { ServiceDeps } from '../../src/deps.ts';
import { AppError } from '../../src/errors.ts';
import type { RowWriter } from '../runs/executor.ts';
import { llmExecutor, llmSettingsFrom } from '../runs/executors/llm.ts';
import { promptLoaderFrom } from '../runs/executors/prompt-loader.ts';

export interface LlmDraftRequest {
  organizationId: string;
  taskId: string;
  promptTemplateId: string;
  /** The lead's fields (leadFields): the template's variables. */
  fields: Record<string, string | null>;
}

/** A draft names no table: an executor asking to write rows is a bug, not a row error. */
const noRows: RowWriter = { insert: () => Promise.reject(new Error('a task email draft writes no rows')) };

/** `Subject: ...` on the answer's first line gives the subject; the rest (blank lines trimmed) is the body. */
const SUBJECT_LINE = /^\s*subject:[ \t]*(.*)\r?\n/i;

export function splitAnswer(answer: string): { subject?: string; body: string } {
  const match = SUBJECT_LINE.exec(answer);
  if (!match) return { body: answer.trim() };
  return { subject: match[1]!.trim(), body: answer.slice(match[0].length).trim() };
}

/**
 * The email of a step that names a prompt template, written by the `llm` provider: the template
 * (its latest version) rendered with the lead's fields and sent as one chat completion, through the
 * very executor llm columns run (the same client, settings, template loading and rendering, and
 * error outcomes). Undefined when no LLM API is configured: the caller renders the step's text
 * plainly instead. Whatever else goes wrong is a problem for the request, never a 500.
 */
export async function draftWithLlm(
  deps: Pick<ServiceDeps, 'config' | 'store' | 'clock'>,
  request: LlmDraftRequest,
): Promise<{ subject?: string; body: string } | undefined> {
  const executor = llmExecutor({
    settings: llmSettingsFrom(deps.config),
    loadPrompt: promptLoaderFrom(deps.store),
  });
  const column = {
    id: 'task_email',
    key: 'email',
    dataType: 'text',
    config: { provider: 'llm', promptTemplateId: request.promptTemplateId },
  };
  const outcome = await executor({
    organizationId: request.organizationId,
    tableId: '',
    runId: '',
    column,
    row: { id: request.taskId, cells: request.fields },
    columns: [],
    // One per draft asked for: the client's own retries of it share it, a new draft does not.
    idempotencyKey: `draft-email:${request.taskId}:${randomUUID()}`,
    resolveSecret: async () => undefined,
    rows: noRows,
    // The client's timeout (LLM_TIMEOUT_MS per attempt) bounds the call.
    signal: new AbortController().signal,
    now: deps.clock,
  });
  if (outcome.ok) {
    const draft = splitAnswer(String(outcome.value));
    if (draft.body !== '') return draft;
    throw new AppError('provider_failed', 'The LLM provider answered an email with no body.');
  }
  const { code, message } = outcome.error;
  if (code === 'provider_unavailable') return undefined;
  if (code === 'prompt_not_found')
    throw new AppError(
      'conflict',
      `The step's prompt template ${request.promptTemplateId} no longer exists: edit the step, or draft by hand with PATCH { email }.`,
    );
  if (code === 'missing_input') {
    // The executor's message names the variables after "needs a value for", comma-separated.
    const names = /needs a value for (.*), empty/.exec(message)?.[1]?.split(', ') ?? [];
    throw new AppError('render_failed', "The step's prompt template needs lead fields this lead lacks.", {
      errors: names.map((name) => ({ path: `variables.${name}`, message: 'the lead has no value for it' })),
    });
  }
  if (code === 'template_output_too_large') {
    const name = /\{\{(\w+)\}\}/.exec(message)?.[1] ?? 'template';
    throw new AppError(
      'template_output_too_large',
      `The step's prompt template, filled with this lead's fields, cannot be drafted: ${message}.`,
      { errors: [{ path: `variables.${name}`, message }] },
    );
  }
  throw new AppError('provider_failed', `The LLM provider could not draft the email (${code}): ${message}.`);
}
