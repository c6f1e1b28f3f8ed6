import { deleteSecretRoute } from './delete-secret.ts';
import { putSecretRoute } from './put-secret.ts';

export const secretCommands = [putSecretRoute, deleteSecretRoute];
