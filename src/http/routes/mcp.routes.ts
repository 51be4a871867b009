// The MCP server over Streamable HTTP, stateless: every POST /mcp gets a new server and transport and
// no session. Answers are JSON, except a tool call that reports progress or waits (a progressToken,
// or wait_for_approval): that one streams (Server-Sent Events) so progress notifications reach the
// caller and keep-alives keep the connection open while it waits.
import { Type } from '@fastify/type-provider-typebox';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../../errors.js';
import { errorResponses } from '../schemas/common.js';

/** MCP messages are small: a tool call is well under 1 KiB. */
export const MCP_BODY_LIMIT_BYTES = 16 * 1024;

const JsonRpcMessage = Type.Object(
  { jsonrpc: Type.Literal('2.0'), method: Type.Optional(Type.String()), id: Type.Optional(Type.Unknown()) },
  {
    additionalProperties: true,
    title: 'McpMessage',
    description: 'one JSON-RPC 2.0 message of the Model Context Protocol',
  },
);

interface Message {
  method?: unknown;
  params?: { name?: unknown; _meta?: { progressToken?: unknown } };
}

/** A tool call that waits or reports progress is answered as an event stream. */
function streams(body: unknown): boolean {
  const messages = (Array.isArray(body) ? body : [body]) as Message[];
  return messages.some(
    (m) =>
      m?.method === 'tools/call' &&
      (m.params?._meta?.progressToken !== undefined || m.params?.name === 'wait_for_approval'),
  );
}

/** The headers the transport reads (its checks of Accept and Content-Type, the protocol version). */
const TRANSPORT_HEADERS = ['accept', 'content-type', 'mcp-protocol-version'] as const;

/**
 * The request as the transport takes it: its few headers, the body already parsed. The URL is fixed:
 * the Host header is the client's text (`a b`, `xn--`), never part of a URL built here.
 */
function toWebRequest(request: FastifyRequest): Request {
  const headers = new Headers();
  for (const name of TRANSPORT_HEADERS) {
    const value = request.headers[name];
    if (typeof value === 'string') headers.set(name, value);
  }
  return new Request('http://localhost/mcp', { method: 'POST', headers });
}

export async function mcpRoutes(
  app: FastifyInstance,
  { createServer }: { createServer: (request: FastifyRequest) => McpServer },
): Promise<void> {
  app.post(
    '/mcp',
    {
      bodyLimit: MCP_BODY_LIMIT_BYTES,
      config: { rateLimitCategory: 'read' },
      schema: {
        operationId: 'postMcp',
        tags: ['agents'],
        summary: 'MCP (Model Context Protocol) over Streamable HTTP, stateless: the agents’ tools',
        description:
          'One JSON-RPC message (initialize, tools/list, tools/call, prompts/get, …) per request; no session (no Mcp-Session-Id). Tools: get_budget, check_transfer, list_transactions, get_approval, wait_for_approval; prompt: agent-guide (docs/AGENTS.md, MCP). Send `Accept: application/json, text/event-stream`. Answers are application/json, except a tools/call with a progressToken or of wait_for_approval, answered as text/event-stream (progress notifications, then the result). Notifications alone are answered 202. Spends the read budget; bodies up to 16 KiB.',
        body: JsonRpcMessage,
        response: {
          200: {
            description: 'The JSON-RPC response (application/json), or an event stream ending with it',
            content: {
              'application/json': { schema: JsonRpcMessage },
              'text/event-stream': {
                schema: Type.String({
                  description: 'SSE frames: `event: message`, `data: <JSON-RPC message>`',
                }),
              },
            },
          },
          202: { description: 'Accepted: the body held only notifications or responses', type: 'null' },
          ...errorResponses(406, 413, 415),
        },
      },
    },
    async (request, reply) => {
      const server = createServer(request);
      const transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: !streams(request.body),
      });
      // Nothing outlives the exchange: a caller that leaves cancels the tool it called.
      reply.raw.once('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      const response = await transport.handleRequest(toWebRequest(request), { parsedBody: request.body });
      return reply.header('cache-control', 'no-store').send(response);
    },
  );

  const notAllowed = async () => {
    throw new AppError(
      'METHOD_NOT_ALLOWED',
      'This MCP endpoint is stateless: send every message with POST /mcp',
      {
        allow: 'POST',
      },
    );
  };
  const refusal = (operationId: string) => ({
    operationId,
    tags: ['agents'],
    summary: 'Refused (405, Allow: POST): the MCP endpoint keeps no session and opens no standalone stream',
    response: errorResponses(405),
  });
  app.get('/mcp', { schema: refusal('getMcp'), onSend: allowPost }, notAllowed);
  app.delete('/mcp', { schema: refusal('deleteMcp'), onSend: allowPost }, notAllowed);
}

async function allowPost(
  _request: FastifyRequest,
  reply: { header(name: string, value: string): unknown },
  payload: unknown,
) {
  reply.header('allow', 'POST');
  return payload;
}
