import { createWebhookRoute } from './create-webhook.ts';
import { deleteWebhookRoute } from './delete-webhook.ts';
import { redeliverRoute, replayRoute } from './redeliver.ts';
import { rotateSecretRoute } from './rotate-secret.ts';
import { testSendRoute } from './test-send.ts';
import { updateWebhookRoute } from './update-webhook.ts';

export const webhookCommands = [
  createWebhookRoute,
  updateWebhookRoute,
  deleteWebhookRoute,
  rotateSecretRoute,
  redeliverRoute,
  replayRoute,
  testSendRoute,
];
