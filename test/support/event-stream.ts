// A client of the live feed (GET /api/events/stream) for tests: reads the response as it arrives and
// collects each whole frame's id and data.
import assert from 'node:assert/strict';

export interface FeedFrame {
  id: number;
  data: { name: string; programEvent: string; vault: string; id: number };
}

export function openEventStream(url: string, headers: Record<string, string> = {}) {
  const controller = new AbortController();
  const frames: FeedFrame[] = [];
  const ready = fetch(url, { headers, signal: controller.signal }).then((res) => {
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /text\/event-stream/);
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    void (async () => {
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) return;
          buffer += decoder.decode(value, { stream: true });
          // Only whole frames (up to a blank line) are read; the rest waits for more.
          let cut = buffer.indexOf('\n\n');
          while (cut >= 0) {
            const block = buffer.slice(0, cut);
            buffer = buffer.slice(cut + 2);
            const id = /^id: (\d+)$/m.exec(block)?.[1];
            const data = /^data: (.*)$/m.exec(block)?.[1];
            if (id && data) frames.push({ id: Number(id), data: JSON.parse(data) });
            cut = buffer.indexOf('\n\n');
          }
        }
      } catch {
        // aborted
      }
    })();
  });
  return {
    frames,
    /** The ids of the frames so far, in the order they came. */
    get ids() {
      return frames.map((frame) => frame.id);
    },
    ready,
    close: () => controller.abort(),
  };
}
