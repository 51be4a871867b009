// The page a `mailto:` confirmation link opens: GET shows a Confirm button and changes nothing (mail
// scanners follow links); the button POSTs to the same URL, which confirms once.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { CONFIRMATION_PATH } from '../../domain/webhooks/confirmations.js';
import type { WebhookService } from '../../domain/webhooks/webhook-service.js';
import { AppError } from '../../errors.js';
import type { CspDirectives } from '../plugins/security.js';
import { errorResponses } from '../schemas/common.js';
import { HtmlPage } from './pages.schemas.js';
import { ConfirmationParams } from './webhooks.schemas.js';

/** No scripts, styles or images: the only thing the page may do is post its own form. */
const CONFIRMATION_CSP: CspDirectives = {
  'default-src': ["'none'"],
  'base-uri': ["'none'"],
  'form-action': ["'self'"],
  'frame-ancestors': ["'none'"],
};

const page = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="referrer" content="no-referrer">` +
  `<meta name="viewport" content="width=device-width, initial-scale=1"><title>${title} · Vaultkeeper</title></head>` +
  `<body><h1>${title}</h1>${body}</body></html>`;

const CONFIRM_PAGE = page(
  'Confirm e-mail notifications',
  '<p>Press Confirm to receive Vaultkeeper notifications at this address.</p>' +
    '<form method="post"><button type="submit">Confirm</button></form>' +
    '<p>If you did not ask for them, close this page: nothing will be sent.</p>',
);
const CONFIRMED_PAGE = page(
  'Confirmed',
  '<p>This address now receives the notifications it was subscribed to.</p>',
);
/** Errors keep the API's JSON envelope, like every other route. */
const unusable = () =>
  new AppError('NOT_FOUND', 'This confirmation link is unknown, expired or already used', {
    reason: 'confirmation_unusable',
  });

function sendPage(reply: FastifyReply, html: string) {
  return reply
    .type('text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .header('referrer-policy', 'no-referrer')
    .send(html);
}

export const webhookConfirmationRoutes: FastifyPluginAsyncTypebox<{ webhooks: WebhookService }> = async (
  app,
  { webhooks },
) => {
  // The Confirm button posts an empty HTML form; only these routes accept that content type.
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: 1024 },
    (_request, _body, done) => done(null, {}),
  );
  const route = {
    config: { contentSecurityPolicy: CONFIRMATION_CSP },
    schema: {
      hide: true,
      tags: ['pages'],
      params: ConfirmationParams,
      response: { 200: HtmlPage, ...errorResponses(404) },
    },
  } as const;
  const url = `${CONFIRMATION_PATH}:token`;

  app.get(url, route, async (request, reply) => {
    if (!(await webhooks.isConfirmationUsable(request.params.token))) throw unusable();
    return sendPage(reply, CONFIRM_PAGE);
  });

  app.post(url, route, async (request, reply) => {
    if (!(await webhooks.confirmSubscription(request.params.token))) throw unusable();
    return sendPage(reply, CONFIRMED_PAGE);
  });
};
