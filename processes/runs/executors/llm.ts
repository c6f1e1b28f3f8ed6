import OpenAI from 'openai';
import type { Config } from '../../../src/config.ts';
import { DEFAULT_LLM_LANE, LLM_LANES, type LlmLane } from '../../../src/credits/prices.ts';
import { renderTemplate, type VariableValue } from '../../../src/domain/prompts/template.ts';
import type { ExecutionMeta, Executor, ExecutorContext } from '../executor.ts';
import { failed, since, succeeded } from './outcome.ts';
import type { PromptLoader } from './prompt-loader.ts';
import { type Rendered, RowTemplates } from './render.ts';

export interface LlmSettings {
  /** Neither set: the provider is unavailable. */
  baseUrl?: string;
  apiKey?: string;
  models: Readonly<Record<LlmLane, string>>;
  /** Per attempt. */
  timeoutMs: number;
  /** The client's own retries (429, 5xx, connection errors, with its backoff and Retry-After). */
  maxRetries: number;
}

export const llmSettingsFrom = (config: Config): LlmSettings => ({
  baseUrl: config.LLM_BASE_URL,
  apiKey: config.LLM_API_KEY,
  models: {
    very_fast: config.LLM_MODEL_VERY_FAST,
    fast: config.LLM_MODEL_FAST,
    balanced: config.LLM_MODEL_BALANCED,
    smart: config.LLM_MODEL_SMART,
  },
  timeoutMs: config.LLM_TIMEOUT_MS,
  maxRetries: 2,
});

const isLane = (lane: unknown): lane is LlmLane => LLM_LANES.includes(lane as LlmLane);

/** A cell as a template variable: scalars as they are, JSON as its text; an empty cell is not given. */
function variableOf(value: unknown): VariableValue | undefined {
  if (value === null || value === undefined) return undefined;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  return JSON.stringify(value);
}

/**
 * The prompt of one row: the column's prompt template (its variables are column keys) when it names
 * one, else config.prompt with `{{column_key}}` filled in. Secrets are not put into prompts: a
 * `{{secrets.name}}` in a prompt stays as written, so no secret is ever sent to a model.
 */
async function promptOf(context: ExecutorContext, loadPrompt: PromptLoader): Promise<Rendered<string>> {
  const config = context.column.config;
  if (typeof config.promptTemplateId === 'string') {
    const loaded = await loadPrompt({
      organizationId: context.organizationId,
      promptTemplateId: config.promptTemplateId,
      ...(typeof config.promptVersion === 'number' ? { promptVersion: config.promptVersion } : {}),
    });
    if (!loaded) {
      const message = `prompt template ${config.promptTemplateId} (or the version pinned) does not exist`;
      return { ok: false, error: { code: 'prompt_not_found', message } };
    }
    const given = Object.fromEntries(
      loaded.variables.flatMap((v) => {
        const value = variableOf(context.row.cells[v.name]);
        return value === undefined ? [] : [[v.name, value]];
      }),
    );
    const rendered = renderTemplate(loaded.template, loaded.variables, given);
    if (rendered.ok) return rendered;
    if (rendered.tooLarge) {
      const why = rendered.errors[0]!.message.replace(/^with this value, /, "with this row's values, ");
      const message = `the prompt (version ${loaded.version}): ${why}`;
      return { ok: false, error: { code: 'template_output_too_large', message } };
    }
    const names = rendered.errors.map((e) => e.path.replace(/^variables\./, '')).join(', ');
    const message = `the prompt (version ${loaded.version}) needs a value for ${names}, empty in this row`;
    return { ok: false, error: { code: 'missing_input', message } };
  }
  if (typeof config.prompt === 'string' && config.prompt.trim() !== '') {
    return new RowTemplates(context, { secrets: false }).text(config.prompt);
  }
  return {
    ok: false,
    error: { code: 'invalid_config', message: 'the column has no prompt nor promptTemplateId' },
  };
}

/** What a failed call was: an HTTP status, a timeout, no connection, a cancellation. Anything else is a bug. */
function errorOutcome(error: unknown, meta: ExecutionMeta) {
  if (error instanceof OpenAI.APIUserAbortError) return failed('aborted', 'the request was cancelled', meta);
  if (error instanceof OpenAI.APIConnectionTimeoutError)
    return failed('timeout', 'the LLM API did not answer in time', meta);
  if (error instanceof OpenAI.APIConnectionError)
    return failed('connection_failed', 'the LLM API cannot be reached', meta);
  if (error instanceof OpenAI.APIError && error.status !== undefined) {
    // The server's own message is not repeated: an authentication error quotes part of the key.
    const code =
      typeof error.code === 'string' && /^[\w.-]{1,64}$/.test(error.code) ? ` (${error.code})` : '';
    return failed('http_error', `the LLM API answered HTTP ${error.status}${code}`, {
      ...meta,
      httpStatus: error.status,
    });
  }
  throw error;
}

/** A 2xx body as JSON; what went wrong reading it otherwise (the connection, a cancellation, the text). */
async function bodyOf(
  response: Response,
  signal: AbortSignal,
): Promise<{ ok: true; value: unknown } | { ok: false; reason: 'aborted' | 'lost' | 'not_json' }> {
  let text: string;
  try {
    text = await response.text();
  } catch {
    return { ok: false, reason: signal.aborted ? 'aborted' : 'lost' };
  }
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false, reason: 'not_json' };
  }
}

/** A chat completion's choice as read here: anything may be missing or of another type. */
type LooseChoice = { message?: { content?: unknown; refusal?: unknown } | null } | null | undefined;

/**
 * The text of the first choice of a chat completion, read without trusting its shape (`body` is what
 * JSON.parse made, so reading a property of a number or a string is harmless): any body but
 * `{ choices: [{ message: { content: "..." } }] }` says what it lacks, never quoting the answer.
 */
function answerText(body: unknown): { ok: true; value: string } | { ok: false; message: string } {
  const choices = (body as { choices?: unknown } | null)?.choices;
  if (!Array.isArray(choices) || choices.length === 0)
    return { ok: false, message: 'the LLM API answered no choices' };
  const message = (choices[0] as LooseChoice)?.message;
  if (typeof message?.content === 'string') return { ok: true, value: message.content };
  const refused = typeof message?.refusal === 'string' ? ' (it refused)' : '';
  return { ok: false, message: `the model answered no text${refused}` };
}

/**
 * The llm provider: one chat completion per row from an OpenAI-compatible API, through the official
 * client (its retries and timeout), streaming off. A column whose dataType is json asks for a JSON
 * object and stores it parsed; a text answer is stored as it is.
 */
export function llmExecutor({
  settings,
  loadPrompt,
}: {
  settings: LlmSettings;
  loadPrompt: PromptLoader;
}): Executor {
  return async (context) => {
    if (settings.baseUrl === undefined && settings.apiKey === undefined) {
      return failed('provider_unavailable', 'no LLM API is configured (LLM_BASE_URL, LLM_API_KEY)');
    }
    const config = context.column.config;
    const lane = config.llmLane ?? DEFAULT_LLM_LANE;
    if (typeof config.model !== 'string' && !isLane(lane)) {
      return failed('invalid_config', `llmLane ${String(lane)} is not one of ${LLM_LANES.join(', ')}`);
    }
    const model = typeof config.model === 'string' ? config.model : settings.models[lane as LlmLane];
    const prompt = await promptOf(context, loadPrompt);
    if (!prompt.ok) return failed(prompt.error.code, prompt.error.message);

    const json = context.column.dataType === 'json';
    const started = context.now();
    let attempts = 0;
    const client = new OpenAI({
      baseURL: settings.baseUrl,
      // A local server needs no key, but the client insists on one.
      apiKey: settings.apiKey ?? 'unused',
      timeout: settings.timeoutMs,
      maxRetries: settings.maxRetries,
      // Counts the client's attempts, retries included, for the row's meta.
      fetch: (url, init) => {
        attempts++;
        return fetch(url, init);
      },
    });
    const meta = (): ExecutionMeta => ({ durationMs: since(started, context.now()), attempts });
    let response: Response;
    try {
      // The raw response: the client's parse trusts the body's shape, and a server that only claims
      // the protocol must fail its row, not throw (a throw is retried as a bug, calling it again).
      response = await client.chat.completions
        .create(
          {
            model,
            stream: false,
            messages: [
              ...(json
                ? [{ role: 'system' as const, content: 'Answer with one JSON object and nothing else.' }]
                : []),
              { role: 'user' as const, content: prompt.value },
            ],
            ...(json ? { response_format: { type: 'json_object' as const } } : {}),
          },
          { headers: { 'Idempotency-Key': context.idempotencyKey }, signal: context.signal },
        )
        .asResponse();
    } catch (error) {
      return errorOutcome(error, meta());
    }
    const body = await bodyOf(response, context.signal);
    const done = { ...meta(), httpStatus: response.status };
    if (!body.ok) {
      if (body.reason === 'aborted') return failed('aborted', 'the request was cancelled', done);
      if (body.reason === 'lost')
        return failed('connection_failed', 'the LLM API broke off its answer', done);
      return failed('invalid_response', 'the LLM API answered a body that is not JSON', done);
    }
    const text = answerText(body.value);
    if (!text.ok) return failed('invalid_response', text.message, done);
    if (!json) return succeeded(text.value, done);
    try {
      return succeeded(JSON.parse(text.value), done);
    } catch {
      return failed('invalid_response', 'the model was asked for JSON and answered something else', done);
    }
  };
}
