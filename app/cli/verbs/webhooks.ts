import type { Command } from 'commander';
import { UsageError } from '../errors.ts';
import { clientFor } from '../http.ts';
import { emit, formatRecord, formatTable } from '../output.ts';
import { fetchPages, type PageOptions, pageOptions, withMore } from '../pages.ts';

interface Webhook {
  id: string;
  url: string;
  eventTypes: string[];
  description: string;
  status: string;
  disabledReason: string | null;
  health: { consecutiveFailures: number; failingSince: string | null; lastSuccessAt: string | null };
  createdAt: string;
  updatedAt: string;
  secret?: string;
}

interface Attempt {
  attempt: number;
  at: string;
  statusCode: number | null;
  durationMs: number;
  response: string;
  outcome: string;
  nextAttemptAt: string | null;
}

interface Delivery {
  id: string;
  eventType: string;
  eventAt: string;
  test: boolean;
  status: string;
  nextAttemptAt: string | null;
  attempts: Attempt[];
}

const webhookPath = (id: string) => `/api/webhooks/${encodeURIComponent(id)}`;

const showWebhook = (w: Webhook) =>
  formatRecord([
    ['ID', w.id],
    ['URL', w.url],
    ['Event types', w.eventTypes.join(', ')],
    ['Description', w.description],
    ['Status', w.disabledReason ? `${w.status}: ${w.disabledReason}` : w.status],
    ['Failing since', w.health.failingSince],
    ['Failed in a row', w.health.consecutiveFailures],
    ['Last success', w.health.lastSuccessAt],
    ['Created', w.createdAt],
    ['Updated', w.updatedAt],
    // Shown once, on create and rotation: the service keeps it sealed.
    ...(w.secret ? [['Secret', `${w.secret}  (shown once: keep it now)`] as [string, unknown]] : []),
  ]);

const eventTypesOption = (value: string) => {
  const types = value
    .split(',')
    .map((t) => t.trim())
    .filter((t) => t !== '');
  if (types.length === 0) throw new UsageError('--events takes comma-separated event types, or *');
  return types;
};

interface EditOptions {
  url?: string;
  events?: string[];
  description?: string;
  enabled?: boolean;
}

const editBody = (o: EditOptions) =>
  Object.fromEntries(
    Object.entries({
      url: o.url,
      eventTypes: o.events,
      description: o.description,
      enabled: o.enabled,
    }).filter(([, v]) => v !== undefined),
  );

/** `stk webhooks list | create | get | update | delete | rotate-secret | test | deliveries | redeliver | replay | event-types`. */
export function registerWebhookCommands(program: Command): void {
  const webhooks = program.command('webhooks').description("the organization's webhook subscriptions");

  pageOptions(
    webhooks.command('list').description('list subscriptions, oldest first'),
    'subscriptions',
  ).action(async (options: PageOptions, command: Command) => {
    const page = await fetchPages<Webhook>(await clientFor(command), '/api/webhooks', options);
    const text = formatTable(page.data, [
      { header: 'ID', value: (w) => w.id },
      { header: 'STATUS', value: (w) => w.status },
      { header: 'URL', value: (w) => w.url },
      { header: 'EVENTS', value: (w) => w.eventTypes.join(',') },
    ]);
    emit(command, page, () => withMore(text, page.nextCursor));
  });

  webhooks
    .command('event-types')
    .description('the catalogue of event types')
    .action(async (_options: unknown, command: Command) => {
      const { data } = await (await clientFor(command)).get<{
        data: { type: string; description: string }[];
      }>('/api/webhooks/event-types');
      emit(command, data, () =>
        formatTable(data, [
          { header: 'TYPE', value: (e) => e.type },
          { header: 'DESCRIPTION', value: (e) => e.description },
        ]),
      );
    });

  webhooks
    .command('create')
    .description('subscribe a URL to event types; prints the signing secret once')
    .requiredOption('--url <url>', 'where messages are POSTed')
    .requiredOption('--events <types>', 'comma-separated event types, or *', eventTypesOption)
    .option('--description <text>', 'what it is for')
    .option('--paused', 'create it paused')
    .action(async (options: EditOptions & { paused?: boolean }, command: Command) => {
      const body = { ...editBody(options), ...(options.paused ? { enabled: false } : {}) };
      const webhook = await (await clientFor(command)).post<Webhook>('/api/webhooks', body);
      emit(command, webhook, () => showWebhook(webhook));
    });

  webhooks
    .command('get')
    .argument('<id>')
    .description('show a subscription and its health')
    .action(async (id: string, _options: unknown, command: Command) => {
      const webhook = await (await clientFor(command)).get<Webhook>(webhookPath(id));
      emit(command, webhook, () => showWebhook(webhook));
    });

  webhooks
    .command('update')
    .argument('<id>')
    .description('change a subscription; --enable makes a paused or disabled one active again')
    .option('--url <url>', 'a new URL')
    .option('--events <types>', 'comma-separated event types, or *', eventTypesOption)
    .option('--description <text>', 'a new description')
    .option('--enable', 'active again')
    .option('--pause', 'stop sending until enabled')
    .action(
      async (id: string, options: EditOptions & { enable?: boolean; pause?: boolean }, command: Command) => {
        if (options.enable && options.pause) throw new UsageError('--enable or --pause, not both');
        const enabled = options.enable ? true : options.pause ? false : undefined;
        const body = editBody({ ...options, enabled });
        if (Object.keys(body).length === 0)
          throw new UsageError('give at least one of --url, --events, --description, --enable, --pause');
        const webhook = await (await clientFor(command)).patch<Webhook>(webhookPath(id), body);
        emit(command, webhook, () => showWebhook(webhook));
      },
    );

  webhooks
    .command('delete')
    .argument('<id>')
    .description('delete a subscription; nothing more is sent to it')
    .action(async (id: string, _options: unknown, command: Command) => {
      await (await clientFor(command)).delete(webhookPath(id));
      emit(command, { id, deleted: true }, () => `Deleted webhook ${id}.`);
    });

  webhooks
    .command('rotate-secret')
    .argument('<id>')
    .description('a new signing secret; the old one also signs for 24 hours')
    .action(async (id: string, _options: unknown, command: Command) => {
      const webhook = await (await clientFor(command)).post<Webhook>(`${webhookPath(id)}/rotate-secret`);
      emit(command, webhook, () => showWebhook(webhook));
    });

  webhooks
    .command('test')
    .argument('<id>')
    .requiredOption('--event <type>', 'the event type of the sample')
    .description('send a sample message now and show how it went')
    .action(async (id: string, options: { event: string }, command: Command) => {
      const outcome = await (await clientFor(command)).post<Attempt & { messageId: string }>(
        `${webhookPath(id)}/test`,
        { eventType: options.event },
      );
      emit(command, outcome, () =>
        formatRecord([
          ['Message', outcome.messageId],
          ['Outcome', outcome.outcome],
          ['Status code', outcome.statusCode],
          ['Duration', `${outcome.durationMs} ms`],
          ['Response', outcome.response],
        ]),
      );
    });

  pageOptions(
    webhooks
      .command('deliveries')
      .argument('<id>')
      .description('the delivery history, newest first')
      .option('--status <status>', 'succeeded, retrying, failed or skipped'),
    'messages',
  ).action(async (id: string, options: PageOptions & { status?: string }, command: Command) => {
    const page = await fetchPages<Delivery>(
      await clientFor(command),
      `${webhookPath(id)}/deliveries`,
      options,
      {
        status: options.status,
      },
    );
    const text = formatTable(page.data, [
      { header: 'MESSAGE', value: (d) => d.id },
      { header: 'TYPE', value: (d) => (d.test ? `${d.eventType} (test)` : d.eventType) },
      { header: 'STATUS', value: (d) => d.status },
      { header: 'ATTEMPTS', value: (d) => d.attempts.length },
      { header: 'LAST CODE', value: (d) => d.attempts.at(-1)?.statusCode ?? '-' },
      { header: 'NEXT', value: (d) => d.nextAttemptAt ?? '-' },
    ]);
    emit(command, page, () => withMore(text, page.nextCursor));
  });

  webhooks
    .command('redeliver')
    .argument('<id>')
    .argument('<messageId>')
    .description('send a message of the history again')
    .action(async (id: string, messageId: string, _options: unknown, command: Command) => {
      const path = `${webhookPath(id)}/deliveries/${encodeURIComponent(messageId)}/redeliver`;
      const answer = await (await clientFor(command)).post<{ requeued: number }>(path);
      emit(command, answer, () => `Message ${messageId} will be sent again.`);
    });

  webhooks
    .command('replay')
    .argument('<id>')
    .requiredOption('--since <time>', 'ISO 8601 time, included')
    .requiredOption('--until <time>', 'ISO 8601 time, not included')
    .description('send again every message of events in a time window')
    .action(async (id: string, options: { since: string; until: string }, command: Command) => {
      const answer = await (await clientFor(command)).post<{ requeued: number }>(
        `${webhookPath(id)}/replay`,
        {
          since: options.since,
          until: options.until,
        },
      );
      emit(command, answer, () => `${answer.requeued} messages will be sent again.`);
    });
}
