import { bearer, call, type Target } from './accounts.ts';

/** Creates a prompt template and returns it (throws on anything but 201). */
// biome-ignore lint/suspicious/noExplicitAny: a template is arbitrary JSON that tests pick apart
export async function createPrompt(target: Target, apiKey: string, body: object): Promise<any> {
  const res = await call(target, 'POST', '/api/prompts', { headers: bearer(apiKey), body });
  if (res.status !== 201)
    throw new Error(`creating a prompt failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

export const promptPath = (id: string) => `/api/prompts/${id}`;
