// What an owner sees of a failed attempt: a class (timeout, refused, tls, …), never addresses, ports
// or system error text, which would let an owner probe hosts; the full text goes to the server log.

export type FailureClass =
  | 'timeout'
  | 'dns'
  | 'refused'
  | 'reset'
  | 'unreachable'
  | 'tls'
  | 'blocked_address'
  | 'connection_error'
  | 'internal_error';

const codeOf = (error: unknown): string => {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : '';
};

/** The class of a send that got no response. */
export function classifyFailure(error: unknown, timedOut: boolean): FailureClass {
  if (timedOut) return 'timeout';
  const codes = [codeOf(error), codeOf((error as { cause?: unknown } | null)?.cause)];
  const any = (test: (code: string) => boolean) => codes.some((code) => code !== '' && test(code));
  if (any((c) => c === 'VK_ADDRESS_REFUSED')) return 'blocked_address';
  if (any((c) => /TIMEOUT|TIMEDOUT/.test(c))) return 'timeout';
  if (any((c) => ['ENOTFOUND', 'EAI_AGAIN', 'ENODATA', 'EAI_FAIL', 'VK_DNS'].includes(c))) return 'dns';
  if (any((c) => c === 'ECONNREFUSED')) return 'refused';
  if (any((c) => ['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED'].includes(c))) return 'reset';
  if (any((c) => ['EHOSTUNREACH', 'ENETUNREACH', 'EHOSTDOWN', 'ENETDOWN'].includes(c))) return 'unreachable';
  if (any((c) => /TLS|SSL|CERT|EPROTO/.test(c))) return 'tls';
  return 'connection_error';
}

/** The full error text, for the server log only. */
export function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error).slice(0, 500);
  const code = codeOf(error);
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return `${code === '' ? '' : `${code} `}${error.message}${cause}`.slice(0, 500);
}
