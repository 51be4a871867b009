// Every error leaves as the envelope { error, code, details }; 5xx bodies are generic.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  AppError,
  describeIssue,
  type ErrorCode,
  type ErrorDetails,
  type ValidationIssue,
} from '../errors.js';
import { HTTP_STATUS_BY_CODE } from './error-codes.js';

export interface ErrorEnvelope {
  error: string;
  code: ErrorCode;
  details: ErrorDetails;
  /** Solana Actions clients read `message`; Action routes add it. */
  message?: string;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Error bodies of this route also carry `message` (Solana Actions convention). */
    actionEnvelope?: boolean;
  }
}

interface SchemaIssue {
  instancePath?: string;
  message?: string;
  params?: Record<string, unknown>;
  keyword?: string;
  schemaPath?: string;
}

const FASTIFY_CODES: Readonly<Record<string, ErrorCode>> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  FST_ERR_CTP_BODY_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'VALIDATION_ERROR',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'VALIDATION_ERROR',
  FST_ERR_CTP_INVALID_JSON_BODY: 'VALIDATION_ERROR',
  FST_ERR_CTP_EMPTY_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  FST_ERR_CTP_INVALID_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
};

const MESSAGES: Partial<Record<ErrorCode, string>> = {
  UNSUPPORTED_MEDIA_TYPE: 'Request bodies must be JSON (Content-Type: application/json)',
  PAYLOAD_TOO_LARGE: 'Request body is larger than 64 KiB',
  INTERNAL_ERROR: 'Internal server error',
  NOT_FOUND: 'Route not found',
};

/** Turns any thrown value into a status and envelope. */
export function toEnvelope(error: unknown): { status: number; body: ErrorEnvelope; unexpected: boolean } {
  if (error instanceof AppError) {
    return {
      status: HTTP_STATUS_BY_CODE[error.code],
      body: envelope(error.code, error.message, error.details),
      unexpected: false,
    };
  }
  const fastifyError = error as Partial<FastifyError> & {
    validation?: SchemaIssue[];
    validationContext?: string;
  };
  if (Array.isArray(fastifyError.validation)) {
    const issues = toIssues(fastifyError.validation, fastifyError.validationContext);
    return {
      status: 400,
      body: envelope('VALIDATION_ERROR', describeIssue(issues[0]), { issues }),
      unexpected: false,
    };
  }
  const mapped = fastifyError.code === undefined ? undefined : FASTIFY_CODES[fastifyError.code];
  if (mapped !== undefined) {
    if (mapped === 'VALIDATION_ERROR') return notJson();
    return {
      status: HTTP_STATUS_BY_CODE[mapped],
      body: envelope(mapped, MESSAGES[mapped] ?? 'Malformed request body', {}),
      unexpected: false,
    };
  }
  if (error instanceof SyntaxError || fastifyError.code === 'FST_ERR_CTP_INVALID_JSON_BODY') return notJson();
  const status = fastifyError.statusCode;
  if (status === 404)
    return { status, body: envelope('NOT_FOUND', MESSAGES.NOT_FOUND!, {}), unexpected: false };
  if (status === 413)
    return {
      status,
      body: envelope('PAYLOAD_TOO_LARGE', MESSAGES.PAYLOAD_TOO_LARGE!, {}),
      unexpected: false,
    };
  if (status === 415) {
    return {
      status,
      body: envelope('UNSUPPORTED_MEDIA_TYPE', MESSAGES.UNSUPPORTED_MEDIA_TYPE!, {}),
      unexpected: false,
    };
  }
  if (status !== undefined && status >= 400 && status < 500) {
    return {
      status: 400,
      body: envelope('VALIDATION_ERROR', 'Invalid request', {
        issues: [{ path: 'request', message: 'Request is malformed' }],
      }),
      unexpected: false,
    };
  }
  return { status: 500, body: envelope('INTERNAL_ERROR', MESSAGES.INTERNAL_ERROR!, {}), unexpected: true };
}

function notJson(): { status: number; body: ErrorEnvelope; unexpected: boolean } {
  const issues = [{ path: 'body', message: 'is not valid JSON' }];
  return {
    status: 400,
    body: envelope('VALIDATION_ERROR', describeIssue(issues[0]), { issues }),
    unexpected: false,
  };
}

function envelope(code: ErrorCode, error: string, details: ErrorDetails): ErrorEnvelope {
  return { error, code, details };
}

function toIssues(validation: SchemaIssue[], context: string | undefined): ValidationIssue[] {
  const part = context === 'querystring' ? 'query' : (context ?? 'body');
  const issues = validation.flatMap((issue) => {
    const segments = (issue.instancePath ?? '').split('/').filter((s) => s !== '');
    const at = (names: unknown, message: string) =>
      [names].flat().map((name) => ({ path: [part, ...segments, String(name)].join('.'), message }));
    const missing = issue.params?.requiredProperties ?? issue.params?.missingProperty;
    const extra = issue.params?.additionalProperties ?? issue.params?.additionalProperty;
    if (issue.keyword === 'required' && missing !== undefined) return at(missing, 'is required');
    if (issue.keyword === 'additionalProperties' && extra !== undefined)
      return at(extra, 'is not an accepted field');
    // TypeBox also reports each extra property as its own `false` schema failing.
    if (issue.keyword === 'boolean' && issue.schemaPath?.endsWith('/additionalProperties'))
      return [{ path: [part, ...segments].join('.'), message: 'is not an accepted field' }];
    return [{ path: [part, ...segments].join('.'), message: issue.message ?? 'is invalid' }];
  });
  const seen = new Set<string>();
  return issues
    .filter(
      (issue) => !seen.has(`${issue.path}\n${issue.message}`) && seen.add(`${issue.path}\n${issue.message}`),
    )
    .slice(0, 20);
}

export function sendError(request: FastifyRequest, reply: FastifyReply, error: unknown): FastifyReply {
  const { status, body, unexpected } = toEnvelope(error);
  if (unexpected) request.log.error({ err: error }, 'unhandled error');
  // A wallet shows only `message`: the envelope's `error`, which names the first wrong field.
  if (request.routeOptions.config?.actionEnvelope) body.message = body.error;
  // Every 429 (a budget or a concurrency cap), and a 503 of a full cap, says when to come back.
  const refused = body.code === 'RATE_LIMIT_EXCEEDED' || body.code === 'SERVICE_UNAVAILABLE';
  if (refused && typeof body.details.retryAfter === 'number') {
    reply.header('retry-after', body.details.retryAfter);
  }
  return reply.code(status).type('application/json; charset=utf-8').send(body);
}

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error, request, reply) => sendError(request, reply, error));
  app.setNotFoundHandler((request, reply) => {
    const body: ErrorEnvelope = envelope('NOT_FOUND', MESSAGES.NOT_FOUND!, {
      method: request.method,
      path: request.url.split('?')[0],
    });
    if (request.url.startsWith('/api/actions/')) body.message = body.error;
    return reply.code(404).send(body);
  });
}
