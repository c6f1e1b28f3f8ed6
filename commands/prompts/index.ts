import { createPromptRoute } from './create-prompt.ts';
import { deletePromptRoute } from './delete-prompt.ts';
import { updatePromptRoute } from './update-prompt.ts';

export const promptCommands = [createPromptRoute, updatePromptRoute, deletePromptRoute];
