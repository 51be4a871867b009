// A local SMTP server that accepts every message and decodes the parts a test looks at.
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  from: string;
  to: string[];
  headers: Record<string, string>;
  subject: string;
  text: string;
  html: string;
  raw: string;
}

export interface SmtpSink {
  readonly url: string;
  readonly messages: ReceivedMail[];
  /** Makes the next `count` messages fail with a temporary 451 error. */
  failNext(count: number): void;
  close(): Promise<void>;
}

export async function createSmtpSink(): Promise<SmtpSink> {
  const messages: ReceivedMail[] = [];
  let failures = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        if (failures > 0) {
          failures -= 1;
          const error = Object.assign(new Error('Try again later'), { responseCode: 451 });
          callback(error);
          return;
        }
        const raw = Buffer.concat(chunks).toString('utf8');
        const from = session.envelope.mailFrom === false ? '' : session.envelope.mailFrom.address;
        messages.push({ ...parseMail(raw), from, to: session.envelope.rcptTo.map((r) => r.address), raw });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    failNext(count) {
      failures = count;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function splitHead(raw: string): { headers: Record<string, string>; body: string } {
  const at = raw.indexOf('\r\n\r\n');
  const head = at === -1 ? raw : raw.slice(0, at);
  const body = at === -1 ? '' : raw.slice(at + 4);
  const headers: Record<string, string> = {};
  for (const line of head.replace(/\r\n[ \t]+/g, ' ').split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { headers, body };
}

function decodeBody(body: string, encoding: string | undefined): string {
  const kind = (encoding ?? '7bit').toLowerCase();
  if (kind === 'base64') return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  if (kind !== 'quoted-printable') return body;
  const bytes = body
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/gi, (_m, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
  return Buffer.from(bytes, 'latin1').toString('utf8');
}

/** RFC 2047 encoded words (`=?UTF-8?Q?…?=` / `=?UTF-8?B?…?=`) as nodemailer writes them. */
function decodeWords(value: string): string {
  return value
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?([^?]+)\?([QqBb])\?([^?]*)\?=/g, (_m, _charset: string, kind: string, text: string) =>
      kind.toUpperCase() === 'B'
        ? Buffer.from(text, 'base64').toString('utf8')
        : decodeBody(text.replaceAll('_', ' '), 'quoted-printable'),
    );
}

function parseMail(raw: string): Omit<ReceivedMail, 'from' | 'to' | 'raw'> {
  const { headers, body } = splitHead(raw);
  const parts: { type: string; content: string }[] = [];
  const walk = (partHeaders: Record<string, string>, partBody: string) => {
    const type = partHeaders['content-type'] ?? 'text/plain';
    const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
    if (type.toLowerCase().startsWith('multipart/') && boundary !== undefined) {
      for (const section of partBody.split(`--${boundary}`).slice(1)) {
        if (section.startsWith('--')) break;
        const inner = splitHead(section.replace(/^\r\n/, ''));
        walk(inner.headers, inner.body.replace(/\r\n$/, ''));
      }
      return;
    }
    parts.push({
      type: type.toLowerCase(),
      content: decodeBody(partBody, partHeaders['content-transfer-encoding']),
    });
  };
  walk(headers, body);
  return {
    headers,
    subject: decodeWords(headers.subject ?? ''),
    text: parts.find((p) => p.type.startsWith('text/plain'))?.content ?? '',
    html: parts.find((p) => p.type.startsWith('text/html'))?.content ?? '',
  };
}
