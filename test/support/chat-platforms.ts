// Strict checks of what Slack, Discord and Telegram accept (their documented request schemas and
// limits), and how each would render the text, so tests can read a message as its reader sees it.
// Each validator returns the list of problems (empty = the platform would accept the body).

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const isHttpUrl = (v: unknown): v is string => typeof v === 'string' && /^https?:\/\/[^\s]+$/.test(v);

function checker() {
  const problems: string[] = [];
  const check = (ok: boolean, problem: string) => {
    if (!ok) problems.push(problem);
  };
  const keys = (value: Json, allowed: string[], where: string) => {
    for (const key of Object.keys(value)) check(allowed.includes(key), `${where}: unknown field ${key}`);
  };
  const text = (value: unknown, max: number, where: string, min = 1) => {
    check(typeof value === 'string', `${where}: not a string`);
    if (typeof value === 'string') {
      check(value.length >= min, `${where}: shorter than ${min}`);
      check(value.length <= max, `${where}: ${value.length} > ${max} characters`);
    }
  };
  return { problems, check, keys, text };
}

// ---- Slack (Block Kit: section, actions, button) ----

/** mrkdwn: `<` and `>` only as link/mention syntax (we send none), `&` only as one of the three entities. */
function slackMrkdwnProblems(text: string): string[] {
  const problems: string[] = [];
  if (/[<>]/.test(text)) problems.push('mrkdwn: raw < or > (would be read as a link or mention)');
  if (/&(?!(amp|lt|gt);)/.test(text)) problems.push('mrkdwn: & not part of &amp; &lt; &gt;');
  return problems;
}

export function validateSlackBody(body: unknown): string[] {
  const { problems, check, keys, text } = checker();
  if (!isObject(body)) return ['body: not an object'];
  keys(body, ['text', 'mrkdwn', 'blocks'], 'body');
  if (body.mrkdwn !== undefined) check(typeof body.mrkdwn === 'boolean', 'mrkdwn: not a boolean');
  text(body.text, 40_000, 'text');
  if (typeof body.text === 'string') problems.push(...slackMrkdwnProblems(body.text));
  check(Array.isArray(body.blocks) && body.blocks.length >= 1 && body.blocks.length <= 50, 'blocks: 1..50');
  for (const [i, block] of (Array.isArray(body.blocks) ? body.blocks : []).entries()) {
    const where = `blocks[${i}]`;
    if (!isObject(block)) {
      problems.push(`${where}: not an object`);
      continue;
    }
    if (block.type === 'section') {
      keys(block, ['type', 'text', 'block_id'], where);
      const t = block.text;
      check(isObject(t) && t.type === 'mrkdwn', `${where}.text: not mrkdwn`);
      if (isObject(t)) {
        keys(t, ['type', 'text', 'verbatim'], `${where}.text`);
        text(t.text, 3000, `${where}.text.text`);
        if (typeof t.text === 'string') problems.push(...slackMrkdwnProblems(t.text));
      }
    } else if (block.type === 'header') {
      keys(block, ['type', 'text', 'block_id'], where);
      problems.push(...slackPlainTextProblems(block.text, 150, `${where}.text`));
    } else if (block.type === 'context') {
      keys(block, ['type', 'elements', 'block_id'], where);
      const elements = Array.isArray(block.elements) ? block.elements : [];
      check(elements.length >= 1 && elements.length <= 10, `${where}.elements: 1..10`);
      for (const [j, element] of elements.entries())
        problems.push(...slackPlainTextProblems(element, 3000, `${where}.elements[${j}]`));
    } else if (block.type === 'actions') {
      keys(block, ['type', 'elements', 'block_id'], where);
      const elements = Array.isArray(block.elements) ? block.elements : [];
      check(elements.length >= 1 && elements.length <= 25, `${where}.elements: 1..25`);
      for (const [j, button] of elements.entries())
        problems.push(...slackButtonProblems(button, `${where}.elements[${j}]`));
    } else {
      problems.push(`${where}: unexpected block type ${String(block.type)}`);
    }
  }
  return problems;
}

function slackPlainTextProblems(value: unknown, max: number, where: string): string[] {
  const { problems, check, keys, text } = checker();
  if (!isObject(value)) return [`${where}: not an object`];
  keys(value, ['type', 'text', 'emoji'], where);
  check(value.type === 'plain_text', `${where}: not plain_text`);
  text(value.text, max, `${where}.text`);
  return problems;
}

function slackButtonProblems(button: unknown, where: string): string[] {
  const { problems, check, keys, text } = checker();
  if (!isObject(button)) return [`${where}: not an object`];
  keys(button, ['type', 'text', 'url', 'action_id', 'style', 'value'], where);
  check(button.type === 'button', `${where}: not a button`);
  check(isObject(button.text) && button.text.type === 'plain_text', `${where}.text: not plain_text`);
  if (isObject(button.text)) text(button.text.text, 75, `${where}.text.text`);
  check(isHttpUrl(button.url) && button.url.length <= 3000, `${where}.url: not a URL of ≤ 3000`);
  if (button.action_id !== undefined) text(button.action_id, 255, `${where}.action_id`);
  if (button.style !== undefined)
    check(['primary', 'danger'].includes(String(button.style)), `${where}.style`);
  return problems;
}

/** What Slack shows: the three entities decoded (nothing else in our mrkdwn is markup but * and `). */
export const renderSlack = (mrkdwn: string): string =>
  mrkdwn.replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&amp;', '&');

// ---- Discord (Execute Webhook, embed limits, link buttons) ----

export function validateDiscordBody(body: unknown, query: URLSearchParams): string[] {
  const { problems, check, keys, text } = checker();
  if (!isObject(body)) return ['body: not an object'];
  keys(body, ['content', 'embeds', 'components', 'allowed_mentions', 'username', 'avatar_url'], 'body');
  text(body.content, 2000, 'content');
  const embeds = Array.isArray(body.embeds) ? body.embeds : [];
  check(embeds.length <= 10, 'embeds: at most 10');
  for (const [i, embed] of embeds.entries()) problems.push(...discordEmbedProblems(embed, `embeds[${i}]`));
  const rows = Array.isArray(body.components) ? body.components : [];
  check(rows.length <= 5, 'components: at most 5 rows');
  if (rows.length > 0)
    check(query.get('with_components') === 'true', 'components sent without ?with_components=true');
  for (const [i, row] of rows.entries()) {
    const where = `components[${i}]`;
    check(isObject(row) && row.type === 1, `${where}: not an action row`);
    const buttons = isObject(row) && Array.isArray(row.components) ? row.components : [];
    check(buttons.length >= 1 && buttons.length <= 5, `${where}.components: 1..5`);
    for (const [j, b] of buttons.entries()) {
      const at = `${where}.components[${j}]`;
      if (!isObject(b)) continue;
      keys(b, ['type', 'style', 'label', 'url', 'emoji', 'disabled'], at);
      check(b.type === 2 && b.style === 5, `${at}: not a link button (type 2, style 5)`);
      text(b.label, 80, `${at}.label`);
      check(isHttpUrl(b.url) && b.url.length <= 512, `${at}.url: not a URL of ≤ 512`);
    }
  }
  const mentions = body.allowed_mentions;
  check(
    isObject(mentions) && Array.isArray(mentions.parse) && mentions.parse.length === 0,
    'allowed_mentions: must resolve nothing',
  );
  return problems;
}

function discordEmbedProblems(embed: unknown, where: string): string[] {
  const { problems, check, keys, text } = checker();
  if (!isObject(embed)) return [`${where}: not an object`];
  keys(embed, ['title', 'description', 'url', 'color', 'timestamp', 'fields', 'footer', 'author'], where);
  text(embed.title, 256, `${where}.title`);
  text(embed.description, 4096, `${where}.description`);
  if (embed.url !== undefined) check(isHttpUrl(embed.url), `${where}.url`);
  check(
    Number.isInteger(embed.color) && (embed.color as number) >= 0 && (embed.color as number) <= 0xffffff,
    `${where}.color`,
  );
  if (embed.timestamp !== undefined)
    check(
      typeof embed.timestamp === 'string' &&
        /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/.test(embed.timestamp),
      `${where}.timestamp`,
    );
  const fields = Array.isArray(embed.fields) ? embed.fields : [];
  check(fields.length <= 25, `${where}.fields: at most 25`);
  let total = String(embed.title ?? '').length + String(embed.description ?? '').length;
  for (const [i, f] of fields.entries()) {
    if (!isObject(f)) continue;
    keys(f, ['name', 'value', 'inline'], `${where}.fields[${i}]`);
    text(f.name, 256, `${where}.fields[${i}].name`);
    text(f.value, 1024, `${where}.fields[${i}].value`);
    total += String(f.name).length + String(f.value).length;
  }
  check(total <= 6000, `${where}: ${total} > 6000 characters in all`);
  return problems;
}

/** What Discord shows of markdown text: backslash escapes removed, code spans unwrapped. */
export const renderDiscord = (markdown: string): string =>
  // A code span opens on a backtick no backslash escapes (an escaped one is a character shown as typed).
  markdown.replace(/(?<!\\)`([^`\\]*)`/g, '$1').replace(/\\([^A-Za-z0-9\s])/g, '$1');

/** Markdown characters that would change the text unless escaped (after removing our escapes and code spans). */
export function discordUnescaped(markdown: string): string[] {
  const outside = markdown.replace(/`[A-Za-z0-9]*`/g, '').replace(/\\[^A-Za-z0-9\s]/g, '');
  return [...outside.matchAll(/[*_~`|<>@[\]]/g)].map((m) => m[0]);
}

// ---- Telegram (sendMessage, parse_mode HTML) ----

const TELEGRAM_TAGS = new Set([
  'b',
  'strong',
  'i',
  'em',
  'u',
  'ins',
  's',
  'strike',
  'del',
  'code',
  'pre',
  'a',
  'blockquote',
  'tg-spoiler',
]);

/** Telegram's HTML parser: known tags only, properly nested, entities only &lt; &gt; &amp; &quot; or numeric. */
function telegramHtmlProblems(html: string): string[] {
  const problems: string[] = [];
  const open: string[] = [];
  for (const match of html.matchAll(/<(\/?)([a-z-]+)(\s[^>]*)?>|<|&(#\d+|#x[0-9a-f]+|[a-z]+);|&/gi)) {
    const [whole, closing, tag] = match;
    if (whole === '<') problems.push('html: a < that starts no tag');
    else if (whole === '&') problems.push('html: a bare &');
    else if (whole.startsWith('&')) {
      if (!/^&(lt|gt|amp|quot|#\d+|#x[0-9a-f]+);$/i.test(whole))
        problems.push(`html: unsupported entity ${whole}`);
    } else if (!TELEGRAM_TAGS.has(tag!.toLowerCase())) problems.push(`html: unsupported tag ${tag}`);
    else if (closing === '/') {
      if (open.pop() !== tag) problems.push(`html: </${tag}> closes nothing open`);
    } else open.push(tag!);
  }
  if (open.length > 0) problems.push(`html: unclosed ${open.join(', ')}`);
  return problems;
}

export function validateTelegramBody(body: unknown): string[] {
  const { problems, check, keys, text } = checker();
  if (!isObject(body)) return ['body: not an object'];
  keys(
    body,
    ['chat_id', 'text', 'parse_mode', 'reply_markup', 'link_preview_options', 'disable_notification'],
    'body',
  );
  check(
    (typeof body.chat_id === 'string' && /^(-?\d+|@\w{5,32})$/.test(body.chat_id)) ||
      Number.isInteger(body.chat_id),
    'chat_id: not an integer or @channel',
  );
  check(body.parse_mode === 'HTML', 'parse_mode: not HTML');
  text(body.text, 4096, 'text');
  if (typeof body.text === 'string') {
    problems.push(...telegramHtmlProblems(body.text));
    check(renderTelegram(body.text).trim().length >= 1, 'text: empty after entity parsing');
  }
  if (body.reply_markup !== undefined) {
    const markup = body.reply_markup;
    const rows = isObject(markup) && Array.isArray(markup.inline_keyboard) ? markup.inline_keyboard : null;
    check(
      rows?.every((row) => Array.isArray(row)) === true,
      'reply_markup.inline_keyboard: not rows of buttons',
    );
    for (const button of (rows ?? []).flat() as unknown[]) {
      if (!isObject(button)) continue;
      keys(button, ['text', 'url'], 'inline button');
      text(button.text, 64, 'inline button text');
      check(isHttpUrl(button.url), 'inline button url');
    }
  }
  return problems;
}

/** What Telegram shows: tags dropped, the entities decoded. */
export const renderTelegram = (html: string): string =>
  html
    .replace(/<[^>]+>/g, '')
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&quot;', '"')
    .replaceAll('&amp;', '&');
