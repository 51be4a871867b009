// Server-Sent Events over a fetch body: each frame's `id` and `data` (parsed as JSON); comments skipped.

export interface StreamFrame<T> {
  /** The frame's `id:` field (a frame may carry only an id: where to resume from). */
  id: string | undefined;
  data: T | undefined;
}

/** Yields every frame until the stream ends or the caller stops iterating. */
export async function* readEventStream<T>(
  open: () => Promise<Response>,
): AsyncGenerator<StreamFrame<T>, void, undefined> {
  const response = await open();
  const body = response.body;
  if (body === null) return;
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      buffered += value.replaceAll('\r\n', '\n');
      let end = buffered.indexOf('\n\n');
      while (end !== -1) {
        const lines = buffered.slice(0, end).split('\n');
        buffered = buffered.slice(end + 2);
        const field = (name: string) =>
          lines
            .filter((line) => line.startsWith(`${name}:`))
            .map((line) => line.slice(line.startsWith(`${name}: `) ? name.length + 2 : name.length + 1));
        const data = field('data');
        const id = field('id').at(-1);
        if (data.length > 0 || id !== undefined) {
          yield { id, data: data.length > 0 ? (JSON.parse(data.join('\n')) as T) : undefined };
        }
        end = buffered.indexOf('\n\n');
      }
    }
  } finally {
    // Leaving the loop (break, return, an error) closes the connection.
    await reader.cancel().catch(() => {});
  }
}
