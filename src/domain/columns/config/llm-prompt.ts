import type { Config, ConfigContext, ConfigIssue } from './spec.ts';

/**
 * An llm column naming a prompt template: the template must be one of the organization's, a pinned
 * promptVersion one of its versions, and each variable of that version (the latest when unpinned) a
 * column key of the table, where the run takes its value.
 */
export function promptTemplateIssues(config: Config, ctx: ConfigContext): ConfigIssue[] {
  const id = config.promptTemplateId as string | undefined;
  const pinned = config.promptVersion as number | undefined;
  if (id === undefined) {
    return pinned === undefined
      ? []
      : [{ path: ['promptVersion'], message: 'promptVersion needs promptTemplateId' }];
  }
  if (config.prompt !== undefined) {
    return [{ path: ['promptTemplateId'], message: 'give prompt or promptTemplateId, not both' }];
  }
  if (!ctx.prompts?.has(id)) return [];
  const template = ctx.prompts.get(id);
  if (!template || template.organizationId !== ctx.organizationId) {
    return [{ path: ['promptTemplateId'], message: 'names no prompt template of this organization' }];
  }
  const version = pinned ?? template.latestVersion;
  const variables = template.variables.get(version);
  if (!variables) {
    return [
      {
        path: ['promptVersion'],
        message: `the template has no version ${version} (its latest is ${template.latestVersion})`,
      },
    ];
  }
  const keys = new Set(ctx.columns.map((c) => c.key));
  return variables
    .filter((name) => !keys.has(name))
    .map((name) => ({
      path: ['promptTemplateId'],
      message: `the template's variable ${name} names no column of this table (version ${version})`,
    }));
}
