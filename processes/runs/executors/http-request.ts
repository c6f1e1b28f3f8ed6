import type { z } from 'zod';
import type { HttpRequestConfigSchema } from '../../../src/domain/columns/config/http-request.ts';
import { DEFAULT_TIMEOUT_SECONDS } from '../../../src/domain/columns/config/http-request.ts';
import { isSecretPlaceholder, placeholders, stringsIn } from '../../../src/domain/columns/references.ts';
import { DEFAULT_MAX_BYTES, type OutboundClient, type OutboundResponse } from '../../../src/net/outbound.ts';
import type { ExecutionMeta, Executor, ExecutorContext } from '../executor.ts';
import { failed, succeeded } from './outcome.ts';
import { RowTemplates } from './render.ts';
import { urlEncoder } from './url-template.ts';

type HttpRequestConfig = z.output<typeof HttpRequestConfigSchema>;

/** How long a URL an `invalid_url` message shows before it is cut. */
const SHOWN_URL_CHARS = 500;

/**
 * The URL built for this row as an `invalid_url` message may show it: each `{{secrets.name}}` left as
 * written (never its value), the cells' values encoded as they were, cut past SHOWN_URL_CHARS.
 */
async function shownUrl(context: ExecutorContext, template: string): Promise<string> {
  const shown = await new RowTemplates(context, { secrets: false }).text(template, urlEncoder(template));
  const text = shown.ok ? shown.value : template;
  return text.length > SHOWN_URL_CHARS ? `${text.slice(0, SHOWN_URL_CHARS)}...` : text;
}

/** Whether the URL parser reads `url` as an absolute http(s) URL, as the outbound client requires. */
function isHttpUrl(url: string): boolean {
  try {
    const { protocol } = new URL(url);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}

const JSON_TYPE = /^(application|text)\/([\w.+-]*\+)?json\b/i;

/** A 2xx body as the cell's value: JSON when the server says it is JSON, text otherwise, null when empty. */
function cellValueOf(
  response: OutboundResponse,
): { ok: true; value: unknown } | { ok: false; message: string } {
  const text = response.body.toString('utf8');
  if (text === '') return { ok: true, value: null };
  if (!JSON_TYPE.test(response.headers['content-type'] ?? '')) return { ok: true, value: text };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false, message: 'the response says it is JSON but does not parse as JSON' };
  }
}

/** Whether a template (a string, or the strings inside a JSON body) fills in a `{{secrets.name}}`. */
const namesSecret = (template: unknown) =>
  stringsIn(template).some(({ text }) => placeholders(text).some(isSecretPlaceholder));

/**
 * The http_request provider: one request per row, placeholders filled from the row's cells and the
 * workspace's secrets, through the guarded outbound client (SSRF guard, retries, body cap).
 */
export function httpRequestExecutor(client: OutboundClient): Executor {
  return async (context) => {
    const config = context.column.config as HttpRequestConfig;
    const templates = new RowTemplates(context);
    // Each value is written as the part of the URL it lands in wants it (url-template.ts).
    const url = await templates.text(config.url, urlEncoder(config.url));
    if (!url.ok) return failed(url.error.code, url.error.message);
    if (!isHttpUrl(url.value)) {
      const shown = await shownUrl(context, config.url);
      return failed('invalid_url', `the URL built for this row is not an absolute http(s) URL: ${shown}`);
    }

    const headers: Record<string, string> = {};
    const sensitiveHeaders: string[] = [];
    for (const [name, template] of Object.entries(config.headers ?? {})) {
      // The run's key is sent in every case (below): a header of the same name would duplicate it.
      if (name.toLowerCase() === 'idempotency-key') continue;
      const value = await templates.text(template);
      if (!value.ok) return failed(value.error.code, value.error.message);
      headers[name] = value.value;
      if (placeholders(template).some(isSecretPlaceholder)) sensitiveHeaders.push(name);
    }
    headers['Idempotency-Key'] = context.idempotencyKey;

    let body: string | undefined;
    let bodyNamesSecret = false;
    const method = config.method;
    if (config.body !== undefined && config.body !== null && method !== 'GET' && method !== 'HEAD') {
      bodyNamesSecret = namesSecret(config.body);
      const rendered =
        typeof config.body === 'string'
          ? await templates.text(config.body)
          : await templates.json(config.body);
      if (!rendered.ok) return failed(rendered.error.code, rendered.error.message);
      if (typeof config.body === 'string') body = rendered.value as string;
      else {
        body = JSON.stringify(rendered.value);
        if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type'))
          headers['Content-Type'] = 'application/json';
      }
    }

    const result = await client.request({
      url: url.value,
      method,
      headers,
      body,
      timeoutMs: (config.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS) * 1000,
      maxBytes: DEFAULT_MAX_BYTES,
      sensitiveHeaders,
      // A secret anywhere in the request follows no redirect to another origin: dropping the headers
      // that hold one would still send one in the body or the URL there.
      crossOriginRedirects: !(namesSecret(config.url) || sensitiveHeaders.length > 0 || bodyNamesSecret),
      signal: context.signal,
    });
    const meta: ExecutionMeta = { durationMs: result.meta.durationMs, attempts: result.meta.attempts };
    if (!result.ok) return failed(result.error.code, result.error.message, meta);
    const { response } = result;
    meta.httpStatus = response.status;
    const host = new URL(response.url).host;
    if (response.status < 200 || response.status > 299) {
      return failed('http_error', `${host} answered HTTP ${response.status}`, meta);
    }
    if (response.truncated) {
      return failed(
        'response_too_large',
        `the response of ${host} is larger than the 1 MB a cell keeps`,
        meta,
      );
    }
    const value = cellValueOf(response);
    return value.ok ? succeeded(value.value, meta) : failed('invalid_response', value.message, meta);
  };
}
