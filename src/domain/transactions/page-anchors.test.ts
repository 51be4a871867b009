import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createPageAnchors } from './page-anchors.js';

const anchor = (position: number) => ({ position, timestamp: `t${position}`, id: `id${position}` });

test('nearest is the last anchor at or before the position, with its stamp', () => {
  const anchors = createPageAnchors();
  assert.equal(anchors.nearest('v', 100), undefined);
  for (const position of [50, 150, 100]) anchors.remember('v', 's1', anchor(position));
  assert.equal(anchors.nearest('v', 49), undefined);
  assert.deepEqual(anchors.nearest('v', 50), { anchor: anchor(50), stamp: 's1' });
  assert.deepEqual(anchors.nearest('v', 149), { anchor: anchor(100), stamp: 's1' });
  assert.deepEqual(anchors.nearest('v', 1_000), { anchor: anchor(150), stamp: 's1' });
  assert.equal(anchors.nearest('other', 1_000), undefined);
});

test('a new stamp forgets the older anchors of the list; forget drops them all', () => {
  const anchors = createPageAnchors();
  anchors.remember('v', 's1', anchor(50));
  anchors.remember('v', 's2', anchor(100));
  assert.equal(anchors.nearest('v', 60), undefined);
  assert.deepEqual(anchors.nearest('v', 100), { anchor: anchor(100), stamp: 's2' });
  anchors.forget('v');
  assert.equal(anchors.nearest('v', 100), undefined);
});

test('each list keeps a bounded number of anchors, and position 0 is never an anchor', () => {
  const anchors = createPageAnchors({ maxAnchorsPerList: 2 });
  anchors.remember('v', 's', anchor(0));
  assert.equal(anchors.nearest('v', 10), undefined);
  for (const position of [10, 20, 30]) anchors.remember('v', 's', anchor(position));
  assert.deepEqual(anchors.nearest('v', 35)?.anchor, anchor(20));
});
