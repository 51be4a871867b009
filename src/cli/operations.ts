// Operator work on the database: rebuild daily metrics, list subscriptions, list and retry deliveries.
// Secrets never leave the database: no command reads or prints them.
import { desc, eq } from 'drizzle-orm';
import { rebuildDailyMetrics } from '../domain/analytics/daily-metrics-rebuild.js';
import { addDays } from '../domain/analytics/periods.js';
import { createDeliveryService, type DeliveryFilter } from '../domain/webhooks/delivery-service.js';
import { createSecretBox } from '../domain/webhooks/secret-box.js';
import type { Delivery } from '../domain/webhooks/webhook-resource.js';
import { createWebhookService } from '../domain/webhooks/webhook-service.js';
import type { Clock } from '../lib/clock.js';
import { isUuid } from '../lib/uuid.js';
import type { Storage } from '../storage/database.js';
import { webhooks } from '../storage/schema/index.js';
import { CliError, EXIT, type Output } from './output.js';

const DAY = /^\d{4}-\d{2}-\d{2}$/;
/** Days rebuilt per transaction: small enough to show progress, large enough to stay fast. */
const REBUILD_CHUNK_DAYS = 7;

const isoDay = (date: Date) => date.toISOString().slice(0, 10);

/** metrics rebuild --from <day> [--to <day>]: rebuilds the daily metrics of the range (to = today by default). */
export async function rebuildMetrics(
  storage: Storage,
  range: { from?: string | undefined; to?: string | undefined },
  clock: Clock,
  out: Output,
) {
  const { from } = range;
  const to = range.to ?? isoDay(clock.now());
  for (const [name, day] of [
    ['--from', from],
    ['--to', to],
  ] as const) {
    if (day === undefined || !DAY.test(day) || Number.isNaN(Date.parse(day))) {
      throw new CliError(
        `metrics rebuild needs ${name} as YYYY-MM-DD${day === undefined ? '' : `, got "${day}"`}`,
        EXIT.usage,
      );
    }
  }
  if (from! > to) throw new CliError(`--from ${from} is after --to ${to}`, EXIT.usage);
  const chunks: { from: string; to: string }[] = [];
  for (let start = from!; start <= to; start = addDays(start, REBUILD_CHUNK_DAYS)) {
    const end = addDays(start, REBUILD_CHUNK_DAYS - 1);
    chunks.push({ from: start, to: [end, to].sort()[0]! });
  }
  const progress = out.progress('rebuilding days', chunks.length);
  let rows = 0;
  for (const chunk of chunks) {
    rows += await rebuildDailyMetrics(storage.db, chunk);
    progress.tick();
  }
  progress.done();
  return { from: from!, to, rows };
}

/** webhooks list [--owner <address>]: every subscription, newest first, without its secret. */
export async function listWebhooks(storage: Storage, owner: string | undefined) {
  const columns = {
    id: webhooks.id,
    owner: webhooks.owner,
    vaultId: webhooks.vaultId,
    url: webhooks.url,
    events: webhooks.events,
    active: webhooks.active,
    disabledReason: webhooks.disabledReason,
    failingSince: webhooks.failingSince,
    createdAt: webhooks.createdAt,
  };
  const query = storage.db.select(columns).from(webhooks);
  return (owner === undefined ? query : query.where(eq(webhooks.owner, owner))).orderBy(
    desc(webhooks.createdAt),
  );
}

function deliveryServices(storage: Storage, clock: Clock) {
  // URL rules, secrets and confirmation mails matter only when subscriptions are written; these
  // commands never write one.
  const webhookService = createWebhookService({
    db: storage.db,
    clock,
    urlPolicy: { allowPrivateUrls: true, emailEnabled: true },
    secretBox: createSecretBox(null),
    mailer: null,
    publicBaseUrl: 'http://localhost',
  });
  return createDeliveryService({ db: storage.db, clock, webhooks: webhookService });
}

async function ownerOf(
  storage: Storage,
  webhookId: string | undefined,
): Promise<{ id: string; owner: string }> {
  if (webhookId === undefined) throw new CliError('--webhook <id> is required', EXIT.usage);
  if (!isUuid(webhookId)) {
    throw new CliError(`--webhook must be a subscription id (uuid), got "${webhookId}"`, EXIT.usage);
  }
  const [row] = await storage.db
    .select({ owner: webhooks.owner })
    .from(webhooks)
    .where(eq(webhooks.id, webhookId));
  if (row === undefined) {
    throw new CliError(
      `no subscription ${webhookId}`,
      EXIT.failed,
      'list them with `vaultkeeper webhooks list`',
    );
  }
  return { id: webhookId, owner: row.owner };
}

/** Every delivery of a subscription (only those of one status or filter when given), newest first. */
async function deliveriesOf(
  service: ReturnType<typeof deliveryServices>,
  webhook: { id: string; owner: string },
  status: DeliveryFilter | undefined,
) {
  const all: Delivery[] = [];
  for (let page = 1; ; page += 1) {
    const { deliveries, pagination } = await service.listDeliveries(webhook.owner, webhook.id, {
      page,
      limit: 100,
      ...(status === undefined ? {} : { status }),
    });
    all.push(...deliveries);
    if (page >= pagination.pages) return all;
  }
}

/** deliveries list --webhook <id> [--failed | --failing]: the subscription's deliveries, newest first. */
export async function listDeliveries(
  storage: Storage,
  clock: Clock,
  webhookId: string | undefined,
  status: DeliveryFilter | undefined,
) {
  return deliveriesOf(deliveryServices(storage, clock), await ownerOf(storage, webhookId), status);
}

/** deliveries retry --webhook <id> [--failed | --failing]: sends them again now. */
export async function retryDeliveries(
  storage: Storage,
  clock: Clock,
  webhookId: string | undefined,
  status: DeliveryFilter | undefined,
  out: Output,
) {
  const webhook = await ownerOf(storage, webhookId);
  const service = deliveryServices(storage, clock);
  const selected = await deliveriesOf(service, webhook, status);
  const progress = out.progress('retrying deliveries', selected.length);
  const retried: string[] = [];
  try {
    for (const delivery of selected) {
      await service.retryDelivery(webhook.owner, webhook.id, delivery.id);
      retried.push(delivery.id);
      progress.tick();
    }
  } finally {
    progress.done();
  }
  return retried;
}
