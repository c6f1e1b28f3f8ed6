import { z } from 'zod';
import { templateRefs } from '../references.ts';
import { type Config, type ProviderSpec, runCondition } from './spec.ts';

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] as const;
export const DEFAULT_TIMEOUT_SECONDS = 30;
/** Rows of one run called at once when the config does not say (contract: default 8, at most 64). */
export const DEFAULT_CONCURRENCY = 8;
export const MAX_CONCURRENCY = 64;

// RFC 9110 token characters.
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,256}$/;

const urlTemplate = z
  .string()
  .min(1)
  .max(4096)
  .refine(
    (url) => {
      // A URL that starts with a placeholder ({{secrets.base_url}}/x) is only known at run time.
      if (url.startsWith('{{')) return true;
      if (!/^https?:\/\//i.test(url)) return false;
      return URL.canParse(url.replace(/\{\{[^{}]*\}\}/g, 'x'));
    },
    { message: 'url must be an http(s) URL or start with a {{placeholder}}' },
  )
  .describe('URL template: {{column_key}} inserts a row value, {{secrets.name}} a workspace secret');

export const HttpRequestConfigSchema = z
  .strictObject({
    provider: z.literal('http_request'),
    url: urlTemplate,
    method: z.enum(HTTP_METHODS),
    headers: z
      .record(z.string().regex(HEADER_NAME, 'not a valid header name'), z.string().max(8192))
      .optional()
      .describe('Header name/value pairs; values accept {{column_key}} and {{secrets.name}}'),
    body: z
      .union([z.string().max(65_536), z.record(z.string(), z.unknown()), z.null()])
      .optional()
      .describe('Body template: null, a string or a JSON object; strings inside accept placeholders'),
    timeoutSeconds: z.number().min(1).max(300).default(DEFAULT_TIMEOUT_SECONDS),
    concurrency: z
      .number()
      .int()
      .min(1)
      .max(MAX_CONCURRENCY)
      .optional()
      .describe(`rows of one run requested at once; default ${DEFAULT_CONCURRENCY}`),
    runCondition,
  })
  .meta({ id: 'HttpRequestConfig', description: 'config of a column with provider http_request' });

export const httpRequest: ProviderSpec = {
  schema: HttpRequestConfigSchema as z.ZodType<Config>,
  refs: (config) => [
    ...templateRefs(config.url, ['url'], true),
    ...templateRefs(config.headers, ['headers'], true),
    ...templateRefs(config.body, ['body'], true),
  ],
};
