import { addMemberRoute } from './add-member.ts';
import { bootstrapAccountRoute } from './bootstrap-account.ts';
import { issueApiKeyRoute } from './issue-api-key.ts';
import { loginRoute } from './login.ts';
import { revokeApiKeyRoute } from './revoke-api-key.ts';

export const accountCommands = [
  bootstrapAccountRoute,
  loginRoute,
  issueApiKeyRoute,
  revokeApiKeyRoute,
  addMemberRoute,
];
