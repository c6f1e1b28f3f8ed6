import type { Command } from 'commander';
import { readSavedConfig } from './config-file.ts';
import { CliError, UsageError } from './errors.ts';

export const DEFAULT_BASE_URL = 'http://127.0.0.1:3000';

/** The program's global options, as every command sees them through `optsWithGlobals()`. */
export interface GlobalOptions {
  baseUrl?: string;
  apiKey?: string;
  json?: boolean;
}

export interface Connection {
  baseUrl: string;
  apiKey?: string;
}

/** Base URL and key, each from the first that gives one: flag, environment, saved config. */
export async function resolveConnection(
  options: GlobalOptions,
  env: NodeJS.ProcessEnv = process.env,
): Promise<Connection> {
  const saved = await readSavedConfig();
  const baseUrl = options.baseUrl || env.STK_BASE_URL || saved.baseUrl || DEFAULT_BASE_URL;
  const apiKey = options.apiKey || env.STK_API_KEY || saved.apiKey;
  return { baseUrl, ...(apiKey ? { apiKey } : {}) };
}

export interface Problem {
  status: number;
  code?: string;
  title?: string;
  detail?: string;
  errors?: { path: string; message: string }[];
  [key: string]: unknown;
}

/** An answer of the API that is not a success: the problem's detail is what the user reads. */
export class ApiError extends CliError {
  constructor(readonly problem: Problem) {
    const lines = [problem.detail || problem.title || `HTTP ${problem.status}`];
    for (const e of problem.errors ?? []) lines.push(`  - ${e.path}: ${e.message}`);
    super(`${lines.join('\n')} (${problem.status}${problem.code ? ` ${problem.code}` : ''})`);
  }

  get status(): number {
    return this.problem.status;
  }
}

export interface RequestOptions {
  body?: unknown;
  query?: Record<string, string | number | boolean | undefined>;
  headers?: Record<string, string>;
}

/** A thin fetch client of the HTTP contract: JSON in, JSON out, problem+json turned into ApiError. */
export class ApiClient {
  constructor(readonly connection: Connection) {}

  async request<T = unknown>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    const url = new URL(path.replace(/^\//, ''), this.connection.baseUrl.replace(/\/?$/, '/'));
    for (const [name, value] of Object.entries(options.query ?? {})) {
      if (value !== undefined) url.searchParams.set(name, String(value));
    }
    const headers: Record<string, string> = {
      accept: 'application/json, application/problem+json',
      ...options.headers,
    };
    if (this.connection.apiKey) headers.authorization = `Bearer ${this.connection.apiKey}`;
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    let response: Response;
    try {
      response = await fetch(url, {
        method,
        headers,
        body: options.body === undefined ? undefined : JSON.stringify(options.body),
      });
    } catch (error) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      throw new CliError(
        `cannot reach ${url.origin}: ${cause?.code ?? cause?.message ?? (error as Error).message}`,
      );
    }
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    if (!response.ok) {
      const problem =
        parsed && typeof parsed === 'object'
          ? (parsed as Problem)
          : { status: response.status, detail: text.slice(0, 200) };
      throw new ApiError({ ...problem, status: response.status });
    }
    return parsed as T;
  }

  get<T = unknown>(path: string, query?: RequestOptions['query']): Promise<T> {
    return this.request<T>('GET', path, { query });
  }

  post<T = unknown>(path: string, body?: unknown, headers?: Record<string, string>): Promise<T> {
    return this.request<T>('POST', path, { body, headers });
  }

  patch<T = unknown>(path: string, body?: unknown): Promise<T> {
    return this.request<T>('PATCH', path, { body });
  }

  put<T = unknown>(path: string, body?: unknown): Promise<T> {
    return this.request<T>('PUT', path, { body });
  }

  delete<T = unknown>(path: string): Promise<T> {
    return this.request<T>('DELETE', path);
  }
}

/**
 * The client for a command, from its global options. `auth: true` (the default) insists on a key,
 * which is a usage error when none is found anywhere.
 */
export async function clientFor(command: Command, options: { auth?: boolean } = {}): Promise<ApiClient> {
  const connection = await resolveConnection(command.optsWithGlobals<GlobalOptions>());
  if ((options.auth ?? true) && !connection.apiKey) {
    throw new UsageError('no API key: pass --api-key, set STK_API_KEY, or run `stk login`');
  }
  return new ApiClient(connection);
}
