import { getSecretRoute } from './get-secret.ts';
import { listSecretsRoute } from './list-secrets.ts';

export const secretQueries = [listSecretsRoute, getSecretRoute];
