import { randomBytes } from 'node:crypto';
import { type BootstrappedAccount, bearer, bootstrapAccount, call, type Target } from '../accounts.ts';
import { eventually } from '../eventually.ts';
import { createPrompt } from '../prompts.ts';
import { createColumns, insertRows } from '../rows.ts';
import { runEnded } from '../runs.ts';
import { putSecret } from '../secrets.ts';
import { activeSequence, addMember, addSender, createLead, enroll } from '../sequences.ts';
import { createTable } from '../tables.ts';
import { deliveries, subscribe } from '../webhooks.ts';
import { ok } from './answers.ts';
import { IMPORTED } from './bodies.ts';

/**
 * One organization holding one of every kind of thing the API names by a path parameter, each
 * named with the organization's marker so that any answer showing it can be caught.
 */
export interface Organization {
  account: BootstrappedAccount;
  key: string;
  /** Text in every name, title and value the organization gave: no answer to the other may hold it. */
  marker: string;
  /** Path parameter name -> an id (or name) of the organization's own object. */
  ids: Record<string, string>;
  /** Extra ids of its objects that no path parameter names (a second row, the run's rows). */
  more: string[];
  /** A secret value it stored. */
  secretValue: string;
}

/**
 * Builds an organization: a table with an input column and an http_request column run once over its
 * two rows (against `targetUrl`), a secret, a prompt, a lead, a member with a sender account, an
 * ACTIVE sequence reading the table with the lead enrolled, a task, a spare key, and a webhook
 * subscription to `hookUrl` with at least one delivery.
 */
export async function buildOrganization(
  target: Target,
  label: string,
  urls: { targetUrl: string; hookUrl: string },
): Promise<Organization> {
  const marker = `${label}${randomBytes(5).toString('hex')}`;
  const account = await bootstrapAccount(target, { organization_name: `Org ${marker}`, first_name: marker });
  const key = account.apiKey;
  const h = { headers: bearer(key) };
  // The subscription first: everything the organization does next is delivered to it.
  const hook = await subscribe(target, key, { url: urls.hookUrl, eventTypes: ['*'], description: marker });
  const tableId = await createTable(target, key, `Table ${marker}`);
  const columns = await createColumns(target, key, tableId, {
    company: 'text',
    result: {
      dataType: 'json',
      kind: 'enrichment',
      config: { provider: 'http_request', method: 'GET', url: `${urls.targetUrl}/r?n={{company}}` },
    },
  });
  const rows = await insertRows(target, key, tableId, [
    { company: `Company ${marker} one` },
    { company: `Company ${marker} two` },
  ]);
  const idempotencyKey = `import-${randomBytes(8).toString('hex')}`;
  ok(
    await call(target, 'POST', `/api/tables/${tableId}/rows`, {
      headers: { ...h.headers, 'idempotency-key': idempotencyKey },
      body: IMPORTED,
    }),
    201,
    'an import',
  );
  const run = ok(
    await call(target, 'POST', `/api/tables/${tableId}/columns/${columns.result.id}/run`, {
      ...h,
      body: { scope: 'all' },
    }),
    202,
    'a run',
  );
  const runId = run.body.runId ?? run.body.id;
  await runEnded(target, key, runId);
  // Not the marker: a request naming the secret would otherwise excuse the marker in its answer.
  const secretName = `secret_${randomBytes(6).toString('hex')}`;
  const secretValue = `value-${marker}-${randomBytes(8).toString('hex')}`;
  ok(await putSecret(target, key, secretName, secretValue), 201, 'a secret');
  const prompt = await createPrompt(target, key, {
    name: `Prompt ${marker}`,
    template: `Hello {{company}} from ${marker}`,
  });
  const leadId = await createLead(target, key, {
    fullName: `Lead ${marker}`,
    companyName: `Company ${marker}`,
    emailAddresses: [`lead-${marker}@example.com`],
  });
  const memberEmail = `member-${marker}@example.com`;
  const userId = await addMember(target, key, memberEmail);
  const senderAccountId = await addSender(target, key, {
    type: 'email',
    address: `sender-${marker}@example.com`,
    userId,
  });
  const sequenceId = await activeSequence(target, key, {
    name: `Sequence ${marker}`,
    sourceTableId: tableId,
  });
  const enrolled = ok(await enroll(target, key, sequenceId, { leadIds: [leadId] }), 200, 'an enrollment');
  const enrollmentId = enrolled.body.data[0]?.enrollmentId;
  if (!enrollmentId) throw new Error(`no enrollment: ${JSON.stringify(enrolled.body)}`);
  const task = ok(
    await call(target, 'POST', '/api/tasks', {
      ...h,
      body: { type: 'email', title: `Task ${marker}`, notes: marker, leadId, assigneeUserId: userId },
    }),
    201,
    'a task',
  );
  const spare = ok(
    await call(target, 'POST', '/api/keys', {
      ...h,
      body: { name: `Key ${marker}`, scopes: ['tables:read'] },
    }),
    201,
    'a key',
  );
  const delivered = await eventually(
    `a delivery to ${label}'s subscription`,
    // One of a fixed type: which is newest varies, and the mirror compares the two organizations' reads.
    async () => (await deliveries(target, key, hook.id)).find((d) => d.eventType === 'table.created'),
    30_000,
  );
  return {
    account,
    key,
    marker,
    secretValue,
    ids: {
      tableId,
      columnId: columns.company.id,
      rowId: rows[0].id,
      runId,
      name: secretName,
      promptId: prompt.id,
      leadId,
      userId,
      senderAccountId,
      sequenceId,
      enrollmentId,
      taskId: task.body.id,
      keyId: spare.body.keyMetadata.id,
      id: hook.id,
      deliveryId: delivered.id,
      idempotencyKey,
      memberEmail,
    },
    more: [
      urls.hookUrl,
      account.email,
      account.organizationId,
      account.userId,
      account.keyId,
      rows[1].id,
      columns.result.id,
      `lead-${marker}@example.com`,
    ],
  };
}

/** Everything of `org` that must never show in an answer to another organization. */
export const tellTales = (org: Organization) => [
  org.marker,
  org.secretValue,
  ...Object.values(org.ids),
  ...org.more,
];
