// Reading a request's route config on the hot path: Fastify's `request.routeOptions` builds a fresh
// object on every access, while the route context behind it already holds the config (with url and method).
import type { FastifyContextConfig, FastifyRequest } from 'fastify';

/** The route's config without building `request.routeOptions` (a fresh object on every access). */
let contextSymbol: symbol | null | undefined;
export function routeConfigOf(
  request: FastifyRequest,
): (FastifyContextConfig & { url?: string }) | undefined {
  if (contextSymbol === undefined) {
    contextSymbol =
      Object.getOwnPropertySymbols(request).find((s) => s.description === 'fastify.context') ?? null;
  }
  if (contextSymbol !== null) {
    const context = (request as unknown as Record<symbol, { config?: FastifyContextConfig } | undefined>)[
      contextSymbol
    ];
    if (context !== undefined) return context.config;
  }
  return request.routeOptions.config;
}
