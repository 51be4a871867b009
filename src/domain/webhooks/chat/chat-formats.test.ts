import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  discordUnescaped,
  renderDiscord,
  renderSlack,
  renderTelegram,
  validateDiscordBody,
  validateSlackBody,
  validateTelegramBody,
} from '../../../../test/support/chat-platforms.js';
import { WEBHOOK_EVENTS } from '../webhook-events.js';
import { buildChatMessage } from './chat-message.js';
import { parsePlatformRetryAfterMs } from './chat-request.js';
import { detectFormat, maskUrl, parseTelegramUrl, resolveFormat } from './destination.js';
import { buildDiscordBody } from './discord.js';
import { escapeWithin, joinLinesWithin } from './fit-text.js';
import { buildSlackBody, escapeSlack } from './slack.js';
import { buildTelegramBody, escapeTelegram } from './telegram.js';

const VAULT = '7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU';
const DEST = '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM';
const APPROVAL = `https://vk.example.com/overrides/${VAULT}/7`;
const TG_URL =
  'https://api.telegram.org/bot123456:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw/sendMessage?chat_id=-1001234567890';

const override = {
  id: 'b1c0c7e4-3f5e-4d4c-9d59-0f0c2d1f4a10',
  vault: VAULT,
  nonce: '7',
  destination: DEST,
  amount: '1500000000',
  blockReason: 'exceeded_daily_limit',
  status: 'pending',
  expiresAt: '2026-11-27T23:30:00.000Z',
  blinkUrl: `https://vk.example.com/api/actions/${VAULT}/7`,
  approvalUrl: APPROVAL,
};

/** A payload for every event the service sends, plus the four alert events and one it does not know. */
const SAMPLES: Record<string, Record<string, unknown>> = {
  'transaction.blocked': {
    vault: VAULT,
    destination: DEST,
    amount: '1500000000',
    blockReason: 'not_whitelisted',
    blinkUrl: override.blinkUrl,
    approvalUrl: APPROVAL,
    signature: null,
  },
  'transaction.executed': {
    id: 'x',
    signature: '5'.repeat(88),
    vault: VAULT,
    destination: DEST,
    amount: '250000000',
    status: 'executed',
    blockReason: null,
    timestamp: '2026-11-27T22:00:00.000Z',
  },
  'override.created': override,
  'override.approved': { ...override, status: 'approved' },
  'override.executed': { ...override, status: 'executed' },
  'override.rejected': { ...override, status: 'rejected' },
  'vault.created': { vault: VAULT, address: VAULT, name: '<b>&', dailyLimit: '5000000000' },
  'vault.paused': { vault: VAULT, address: VAULT, name: 'Ops', dailyLimit: '5000000000' },
  'vault.resumed': { vault: VAULT, address: VAULT, name: 'Ops', dailyLimit: '5000000000' },
  'policy.updated': { vault: VAULT, dailyLimit: '5000000000', whitelistCount: 3, agentSigner: DEST },
  'webhook.test': { webhook: override.id, vault: VAULT, message: 'This is a test event from Vaultkeeper.' },
  'budget.threshold': {
    vault: VAULT,
    threshold: 80,
    dailyLimit: '5000000000',
    spentToday: '4100000000',
    remaining: '900000000',
    windowStart: '2026-11-27T00:00:00.000Z',
    resetsAt: '2026-11-28T00:00:00.000Z',
    signature: '5'.repeat(88),
  },
  'agent.velocity': {
    vault: VAULT,
    agentSigner: DEST,
    windowSeconds: 60,
    maxTransfers: 20,
    count: 21,
    since: '2026-11-27T22:59:00.000Z',
  },
  'override.expiring': { ...override, minutesLeft: 12 },
  'override.expired': { ...override, expired: true },
  'treasury.audited': { vault: VAULT, auditor: 'someone', note: '*bold* <@123> & [x](https://evil.example)' },
};

const bodies = (event: string, data: Record<string, unknown>, vaultName?: string) => {
  const message = buildChatMessage(
    event,
    { timestamp: '2026-11-27T23:00:00.000Z', data },
    vaultName === undefined ? {} : { vaultName },
  );
  return {
    message,
    slack: buildSlackBody(message),
    discord: buildDiscordBody(message),
    telegram: buildTelegramBody(message, '-1001234567890'),
  };
};

const withComponents = new URLSearchParams('with_components=true');

/** A Slack block by its type. */
const slackBlock = (body: { blocks: unknown[] }, type: string) =>
  body.blocks.find((b) => (b as { type: string }).type === type) as Record<string, unknown> | undefined;
const slackSection = (body: { blocks: unknown[] }) =>
  (slackBlock(body, 'section') as { text: { text: string; verbatim?: boolean } }).text;
const SHORT = '7xKX…gAsU';

describe('chat bodies', () => {
  test('every event (service, alerts, unknown) gives a body each platform accepts', () => {
    for (const event of [...WEBHOOK_EVENTS, ...Object.keys(SAMPLES)]) {
      const { slack, discord, telegram } = bodies(event, SAMPLES[event] ?? { vault: VAULT });
      assert.deepEqual(validateSlackBody(slack), [], `slack ${event}`);
      assert.deepEqual(validateDiscordBody(discord, withComponents), [], `discord ${event}`);
      assert.deepEqual(validateTelegramBody(telegram), [], `telegram ${event}`);
    }
  });

  test('approvable events carry a button to the approval page; the others none', () => {
    const approvable = ['transaction.blocked', 'override.created', 'override.expiring'];
    for (const [event, data] of Object.entries(SAMPLES)) {
      const { slack, discord, telegram } = bodies(event, data);
      const wanted = approvable.includes(event);
      const slackButton = (slackBlock(slack, 'actions') as { elements?: { url: string }[] } | undefined)
        ?.elements?.[0]?.url;
      assert.equal(slackButton, wanted ? APPROVAL : undefined, `slack ${event}`);
      assert.equal(
        discord.components[0]?.components[0]?.url,
        wanted ? APPROVAL : undefined,
        `discord ${event}`,
      );
      assert.equal(
        (telegram as { reply_markup?: { inline_keyboard: { url: string }[][] } }).reply_markup
          ?.inline_keyboard[0]?.[0]?.url,
        wanted ? APPROVAL : undefined,
        `telegram ${event}`,
      );
    }
  });

  test('a vault named <b>& shows as typed on every platform', () => {
    const { slack, discord, telegram } = bodies('vault.created', SAMPLES['vault.created']!);
    const header = slackBlock(slack, 'header') as { text: { type: string; text: string } };
    assert.deepEqual(header.text, {
      type: 'plain_text',
      text: `Vault created: <b>& (${SHORT})`,
      emoji: false,
    });
    assert.equal(renderSlack(slack.text), `Vault created: <b>& (${SHORT})`);
    assert.equal(renderDiscord(discord.embeds[0]!.title), `Vault created: <b>& (${SHORT})`);
    assert.equal(renderDiscord(discord.content), `Vault created: <b>& (${SHORT})`);
    assert.deepEqual(discordUnescaped(discord.content), []);
    assert.match(renderTelegram(telegram.text), /^Vault created: <b>& \(7xKX…gAsU\)\n/);
    assert.match(telegram.text, /^<b>Vault created: &lt;b&gt;&amp; \(7xKX…gAsU\)<\/b>/);
  });

  test('every message of a named vault names it beside its short address, a hostile name as typed', () => {
    const name = '*bold* <@here> [x](http://evil.example) :tada: `c`';
    const label = `${name} (${SHORT})`;
    for (const event of [...WEBHOOK_EVENTS, 'budget.threshold', 'agent.velocity', 'override.expiring']) {
      if (event === 'webhook.test' || event.startsWith('vault.')) continue;
      const { message, slack, discord, telegram } = bodies(event, SAMPLES[event] ?? { vault: VAULT }, name);
      assert.ok(message.title.endsWith(label), `${event}: ${message.title}`);
      const context = slackBlock(slack, 'context') as { elements: { type: string; text: string }[] };
      assert.deepEqual(context.elements, [{ type: 'plain_text', text: `Vault: ${label}`, emoji: false }]);
      assert.ok(!slackSection(slack).text.includes(name), `${event}: the name stays out of Slack mrkdwn`);
      assert.equal(slackSection(slack).verbatim, true);
      assert.deepEqual(validateSlackBody(slack), [], event);
      assert.ok(renderDiscord(discord.embeds[0]!.title).endsWith(label), event);
      assert.deepEqual(discordUnescaped(discord.embeds[0]!.title), [], event);
      assert.deepEqual(discordUnescaped(discord.content), [], event);
      assert.ok(renderTelegram(telegram.text).includes(`Vault name: ${name}\n`), event);
      assert.doesNotMatch(telegram.text, /<a |<code>\*|<i>|<@/, event);
    }
  });

  test('a name in the payload wins over the one the worker read; without either, the short address', () => {
    assert.match(bodies('vault.paused', SAMPLES['vault.paused']!, 'Renamed').message.title, /: Ops \(/);
    assert.equal(
      bodies('policy.updated', SAMPLES['policy.updated']!).message.title,
      `Policy updated: ${SHORT}`,
    );
  });

  test('markdown, mentions and links in data are neutralised', () => {
    const { slack, discord, telegram } = bodies('treasury.audited', SAMPLES['treasury.audited']!);
    for (const field of discord.embeds[0]!.fields)
      assert.deepEqual(discordUnescaped(field.value), [], field.value);
    const note = discord.embeds[0]!.fields.find((f) => f.name === 'note')!;
    assert.equal(renderDiscord(note.value), '*bold* <@123> & [x](https://evil.example)');
    assert.match(renderSlack(slackSection(slack).text), /<@123> & \[x\]/);
    assert.match(renderTelegram(telegram.text), /note: \*bold\* <@123> & \[x\]/);
  });

  test('long values are cut within every limit without breaking an escape', () => {
    const name = '<&>'.repeat(3000);
    const data = { vault: VAULT, name, note: `${'&'.repeat(5000)}x`, other: '<'.repeat(9000) };
    for (const event of ['vault.created', 'mystery.event']) {
      const { slack, discord, telegram } = bodies(event, data);
      assert.deepEqual(validateSlackBody(slack), [], `slack ${event}`);
      assert.deepEqual(validateDiscordBody(discord, withComponents), [], `discord ${event}`);
      assert.deepEqual(validateTelegramBody(telegram), [], `telegram ${event}`);
      assert.match(discord.embeds[0]!.title, /…$/);
    }
    const many = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`k${i}`, 'v'.repeat(290)]));
    const { telegram } = bodies('mystery.event', { vault: VAULT, ...many });
    assert.deepEqual(validateTelegramBody(telegram), []);
  });

  test('escapeWithin never ends inside an entity and keeps whole code points', () => {
    for (let max = 1; max < 30; max++) {
      const out = escapeWithin('a&b<c>d😀e'.repeat(5), max, escapeTelegram);
      assert.ok(out.length <= max, `${out} > ${max}`);
      assert.doesNotMatch(out.replace(/&(amp|lt|gt|quot);/g, ''), /&/);
      assert.doesNotMatch(out, /[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
    }
    assert.equal(escapeWithin('a<b', 10, escapeSlack), 'a&lt;b');
    assert.equal(joinLinesWithin(['aaaa', 'bbbb', 'cccc'], 10), 'aaaa\n…');
    assert.equal(joinLinesWithin(['aaaa', 'bbbb', 'cccc'], 11), 'aaaa\nbbbb\n…');
    assert.equal(joinLinesWithin(['aaaa', 'bbbb'], 9), 'aaaa\nbbbb');
  });
});

describe('chat destinations', () => {
  test('the platform is detected from the URL', () => {
    const detect = (url: string) => detectFormat(new URL(url));
    assert.equal(detect('https://hooks.slack.com/services/T000/B000/XXXX'), 'slack');
    assert.equal(detect('https://discord.com/api/webhooks/1/abc'), 'discord');
    assert.equal(detect('https://discordapp.com/api/webhooks/1/abc'), 'discord');
    assert.equal(detect('https://discord.com/channels/1'), null);
    assert.equal(detect(TG_URL), 'telegram');
    assert.equal(detect('https://example.com/hooks.slack.com'), null);
    assert.equal(detect('http://hooks.slack.com/services/x'), null);
    assert.equal(resolveFormat('https://example.com/hook', undefined), 'json');
    assert.equal(resolveFormat('https://chat.example.com/hooks/abc', 'slack'), 'slack');
    assert.equal(resolveFormat(TG_URL, undefined), 'telegram');
  });

  test('a format contradicting the URL, a chat mailto or a malformed Telegram URL is refused on body.format', () => {
    const refused = (url: string, format?: 'json' | 'slack' | 'discord' | 'telegram') =>
      assert.throws(
        () => resolveFormat(url, format),
        (e: { details?: { issues?: { path: string }[] }; message: string }) =>
          e.details?.issues?.[0]?.path === 'body.format' && !e.message.includes('AAHdq'),
      );
    refused('https://hooks.slack.com/services/T/B/X', 'discord');
    refused('https://hooks.slack.com/services/T/B/X', 'json');
    refused('https://discord.com/api/webhooks/1/abc', 'telegram');
    refused('mailto:a@example.com', 'slack');
    refused('https://api.telegram.org/bot123456:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw/sendMessage');
    refused('https://api.telegram.org/bot123456:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw/getUpdates?chat_id=1');
    refused('https://api.telegram.org/botnope/sendMessage?chat_id=1');
    refused(
      'https://api.telegram.org/bot123456:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw/sendMessage?chat_id=1&text=x',
    );
    refused('https://example.com/bot1/sendMessage?chat_id=1', 'telegram');
    assert.deepEqual(parseTelegramUrl(new URL(TG_URL)), {
      endpoint: 'https://api.telegram.org/bot123456:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw/sendMessage',
      chatId: '-1001234567890',
    });
  });

  test('a masked URL keeps the origin and the last 4 characters only', () => {
    assert.equal(
      maskUrl('https://hooks.slack.com/services/T000/B000/abcdWXYZ'),
      'https://hooks.slack.com/…WXYZ',
    );
    assert.equal(maskUrl(TG_URL), 'https://api.telegram.org/…7890');
    assert.doesNotMatch(maskUrl(TG_URL), /AAHdq|bot123456/);
  });

  test('a 429 wait comes from Discord or Telegram bodies, else the header', () => {
    assert.equal(
      parsePlatformRetryAfterMs(429, '{"message":"rate limited","retry_after":1.234,"global":false}', null),
      1234,
    );
    assert.equal(
      parsePlatformRetryAfterMs(429, '{"ok":false,"error_code":429,"parameters":{"retry_after":7}}', 2000),
      7000,
    );
    assert.equal(parsePlatformRetryAfterMs(429, 'rate_limited', 30_000), 30_000);
    assert.equal(parsePlatformRetryAfterMs(500, '{"retry_after":3}', 1000), null);
    assert.equal(parsePlatformRetryAfterMs(429, '{"retry_after":-1}', null), null);
  });
});
