// Delivers `mailto:` subscriptions over SMTP with nodemailer; the outcome feeds the same retry policy.
import type { Logger } from 'pino';
import type { ConfirmationMailer } from '../domain/webhooks/confirmations.js';
import { loadOnUse } from '../lib/load-on-use.js';
import type { EmailMessage } from './email-message.js';
import { classifyFailure, describeError } from './failure-class.js';
import type { SendOutcome } from './http-sender.js';

export interface EmailSenderOptions {
  smtpUrl: string;
  from: string;
  timeoutMs: number;
  /** A pool keeps connections open (the worker); without one each mail has its own (rare mails). */
  pooled?: boolean;
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
  const { createTransport } = loadOnUse<typeof import('nodemailer')>('nodemailer');
  const transport = createTransport({
    url: options.smtpUrl,
    pool: options.pooled ?? true,
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
        const replied = typeof code === 'number';
        return {
          ok: false,
          statusCode: replied ? code : null,
          error: replied ? `smtp_${code}` : classifyFailure(error, false),
          retryAfter: null,
          responseBody: null,
          detail: describeError(error),
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

/** Confirmation mails from the API: one connection each; a failure is logged, the subscription stays unverified. */
export function createConfirmationMailer(
  config: { smtpUrl: string | null; emailFrom: string; webhookTimeoutMs: number },
  logger: Pick<Logger, 'warn'>,
): ConfirmationMailer {
  const sender = createEmailSender({
    smtpUrl: config.smtpUrl ?? '',
    from: config.emailFrom,
    timeoutMs: config.webhookTimeoutMs,
    pooled: false,
  });
  return {
    async send(mail) {
      const outcome = await sender.send({
        to: mail.to,
        deliveryId: mail.id,
        event: 'webhook.confirmation',
        message: { subject: mail.subject, text: mail.text, html: mail.html },
      });
      if (!outcome.ok) {
        logger.warn(
          { confirmationId: mail.id, err: outcome.detail ?? outcome.error },
          'confirmation e-mail failed',
        );
      }
    },
  };
}
