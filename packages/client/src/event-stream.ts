// Server-Sent Events over a fetch body: each `data:` frame parsed as JSON, comments and retry lines skipped.

/** Yields the JSON of every event frame until the stream ends or the caller stops iterating. */
export async function* readEventStream<T>(open: () => Promise<Response>): AsyncGenerator<T, void, undefined> {
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
        const data = buffered
          .slice(0, end)
          .split('\n')
          .filter((line) => line.startsWith('data:'))
          .map((line) => line.slice(line.startsWith('data: ') ? 6 : 5));
        buffered = buffered.slice(end + 2);
        if (data.length > 0) yield JSON.parse(data.join('\n')) as T;
        end = buffered.indexOf('\n\n');
      }
    }
  } finally {
    // Leaving the loop (break, return, an error) closes the connection.
    await reader.cancel().catch(() => {});
  }
}
