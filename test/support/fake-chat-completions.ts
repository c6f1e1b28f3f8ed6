import type { ServerResponse } from 'node:http';
import { type LoopbackServer, type Received, sendJson, startLoopbackServer } from './loopback-http.ts';

/**
 * One scripted answer: the assistant's text, an error status with the OpenAI error body, or a 200
 * whose body is `raw` (JSON) or `rawText` (sent as it is, `application/json` unless `contentType`
 * says otherwise): the odd answers a server that only claims the protocol can give.
 */
export type ChatAnswer =
  | { content: unknown }
  | { status: number; type: string; code: string; message: string; headers?: Record<string, string> }
  | { raw: unknown }
  | { rawText: string; contentType?: string };

export interface FakeChatCompletions {
  /** Base URL as clients take it (`.../v1`). */
  baseUrl: string;
  server: LoopbackServer;
  /** Answers given in order; when none is left, the reply is the text "ok". */
  answers: ChatAnswer[];
  /** The JSON bodies of the completion requests received. */
  // biome-ignore lint/suspicious/noExplicitAny: a request body as the client sent it, picked apart by tests
  bodies(): any[];
  close(): Promise<void>;
}

function answer(res: ServerResponse, req: Received, next: ChatAnswer | undefined) {
  const body = JSON.parse(req.body || '{}');
  if (next && 'raw' in next) return sendJson(res, 200, next.raw);
  if (next && 'rawText' in next) {
    res.writeHead(200, { 'content-type': next.contentType ?? 'application/json' });
    return res.end(next.rawText);
  }
  if ('status' in (next ?? {})) {
    const error = next as Extract<ChatAnswer, { status: number }>;
    const payload = { error: { message: error.message, type: error.type, param: null, code: error.code } };
    return sendJson(res, error.status, payload, error.headers);
  }
  const content = next && 'content' in next ? next.content : 'ok';
  const prompt = JSON.stringify(body.messages ?? []).length;
  sendJson(res, 200, {
    id: `chatcmpl-${Math.random().toString(36).slice(2)}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: body.model,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content, refusal: null },
        logprobs: null,
        finish_reason: 'stop',
      },
    ],
    usage: { prompt_tokens: prompt, completion_tokens: 5, total_tokens: prompt + 5 },
  });
}

/**
 * A server speaking OpenAI's chat completions protocol (POST /v1/chat/completions, streaming off) on
 * loopback: bearer key checked, scripted answers or errors in the OpenAI error shape, requests kept.
 */
export async function startFakeChatCompletions(apiKey: string): Promise<FakeChatCompletions> {
  const fake = { answers: [] as ChatAnswer[] } as FakeChatCompletions;
  fake.server = await startLoopbackServer((req, res) => {
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
      return sendJson(res, 404, {
        error: {
          message: 'Unknown request URL',
          type: 'invalid_request_error',
          param: null,
          code: 'unknown_url',
        },
      });
    }
    if (req.headers.authorization !== `Bearer ${apiKey}`) {
      const error = {
        message: 'Incorrect API key provided',
        type: 'invalid_request_error',
        param: null,
        code: 'invalid_api_key',
      };
      return sendJson(res, 401, { error });
    }
    if (JSON.parse(req.body || '{}').stream === true) {
      return sendJson(res, 400, {
        error: {
          message: 'streaming is not served here',
          type: 'invalid_request_error',
          param: 'stream',
          code: null,
        },
      });
    }
    answer(res, req, fake.answers.shift());
  });
  fake.baseUrl = `${fake.server.url}/v1`;
  fake.bodies = () =>
    fake.server.received.filter((r) => r.url === '/v1/chat/completions').map((r) => JSON.parse(r.body));
  fake.close = () => fake.server.close();
  return fake;
}
