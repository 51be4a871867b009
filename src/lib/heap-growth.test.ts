import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { limitHeapGrowth } from './heap-growth.js';

// What the factor does to a process's memory is measured where memory is measured, by the exports
// benchmark (docs/CAPACITY.md, Exports): the service's growth during a million-row export.
describe('limitHeapGrowth', () => {
  it('sets the factor when the command line chose none', () => {
    assert.equal(limitHeapGrowth(['--import', 'tsx']), true);
  });

  it('leaves a factor chosen on the command line alone, in either spelling', () => {
    assert.equal(limitHeapGrowth(['--heap-growing-percent=20']), false);
    assert.equal(limitHeapGrowth(['--heap_growing_percent', '20']), false);
    assert.equal(limitHeapGrowth(['--heap-growing-percentage=20']), true);
  });
});
