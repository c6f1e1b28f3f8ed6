import type { Principal } from '../../auth/scopes.ts';
import { AppError } from '../../errors.ts';
import { idForm, randomId } from '../../ids.ts';

export const newPromptId = () => randomId('prm');
export const isPromptId = idForm('prm');

export const promptNotFound = (promptId: string) =>
  new AppError('not_found', `No prompt template ${promptId}.`);
export const versionNotFound = (promptId: string, version: number) =>
  new AppError('not_found', `Prompt template ${promptId} has no version ${version}.`);
export const otherOrganization = () =>
  new AppError('forbidden', 'The prompt template belongs to another organization.');

/** The same checks for a query, on the read-model row it read (undefined: no such template). */
export function readablePrompt<Row extends { organization_id: string }>(
  row: Row | undefined,
  promptId: string,
  principal: Principal,
): Row {
  if (!row) throw promptNotFound(promptId);
  if (row.organization_id !== principal.organizationId) throw otherOrganization();
  return row;
}
