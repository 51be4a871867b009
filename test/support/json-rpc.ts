// One JSON-RPC call to a Solana RPC endpoint (the fake validator).
export async function rpcAnswer<T>(
  url: string,
  method: string,
  params: unknown[],
): Promise<{ result?: T; error?: { message: string } }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return (await response.json()) as { result?: T; error?: { message: string } };
}

/** The call's result; an RPC error is thrown. */
export async function rpcCall<T>(url: string, method: string, params: unknown[]): Promise<T> {
  const body = await rpcAnswer<T>(url, method, params);
  if (body.error !== undefined) throw new Error(`${method}: ${JSON.stringify(body.error)}`);
  return body.result as T;
}
