// Delivers `mailto:` subscriptions over SMTP with nodemailer; the outcome feeds the same retry policy.
import { createTransport } from 'nodemailer';
import type { EmailMessage } from './email-message.js';
import type { SendOutcome } from './http-sender.js';

export interface EmailSenderOptions {
  smtpUrl: string;
  from: string;
  timeoutMs: number;
}

export interface EmailRequest {
  to: string;
  deliveryId: string;
  event: string;
  message: EmailMessage;
}

export interface EmailSender {
  send(request: EmailRequest): Promise<SendOutcome>;
  close(): Promise<void>;
}

export function createEmailSender(options: EmailSenderOptions): EmailSender {
  const transport = createTransport({
    url: options.smtpUrl,
    pool: true,
    maxConnections: 4,
    connectionTimeout: options.timeoutMs,
    greetingTimeout: options.timeoutMs,
    socketTimeout: options.timeoutMs,
  });
  const domain = /@([^>\s]+)>?\s*$/.exec(options.from)?.[1] ?? 'vaultkeeper.local';
  return {
    async send(request) {
      try {
        const info = await transport.sendMail({
          from: options.from,
          to: request.to,
          subject: request.message.subject,
          text: request.message.text,
          html: request.message.html,
          // The same Message-ID on every retry lets mail clients drop a duplicate.
          messageId: `<${request.deliveryId}@${domain}>`,
          headers: { 'X-Vaultkeeper-Event': request.event, 'X-Vaultkeeper-Delivery': request.deliveryId },
        });
        const response = typeof info.response === 'string' ? info.response : '';
        return {
          ok: true,
          statusCode: replyCode(response),
          error: null,
          retryAfter: null,
          responseBody: response.slice(0, 1024) || null,
        };
      } catch (error) {
        const code = (error as { responseCode?: unknown }).responseCode;
        const message = error instanceof Error ? error.message : String(error);
        return {
          ok: false,
          statusCode: typeof code === 'number' ? code : null,
          error: message.slice(0, 500),
          retryAfter: null,
          responseBody: null,
        };
      }
    },
    async close() {
      transport.close();
    },
  };
}

function replyCode(response: string): number | null {
  const match = /^(\d{3})\b/.exec(response);
  return match === null ? null : Number(match[1]);
}
