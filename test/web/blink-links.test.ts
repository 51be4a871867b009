import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { blinkUrlOf, dialToLink, solanaActionLink } from '../../web/blink-links.js';

const VAULT = '7ahLfVoTVkWGczwHEDNC4yX8zV1bJy9tr1kaztMtsbT9';
const at = (href: string) => new URL(href);

describe('the Blink offered without a wallet', () => {
  test("an approval page's Blink is its Action URL, the transfer kept", () => {
    assert.equal(
      blinkUrlOf(at(`https://vaults.example.com/overrides/${VAULT}/7`)),
      `https://vaults.example.com/api/actions/${VAULT}/7`,
    );
    assert.equal(
      blinkUrlOf(at(`https://vaults.example.com/overrides/${VAULT}/7?transfer=5abc`)),
      `https://vaults.example.com/api/actions/${VAULT}/7?transfer=5abc`,
    );
  });

  test('solana-action: and dial.to links as the Actions specification and dial.to read them', () => {
    const plain = `https://vaults.example.com/api/actions/${VAULT}/7`;
    assert.equal(solanaActionLink(plain), `solana-action:${plain}`);
    const withQuery = `${plain}?transfer=5abc`;
    assert.equal(solanaActionLink(withQuery), `solana-action:${encodeURIComponent(withQuery)}`);
    const dial = new URL(dialToLink(withQuery));
    assert.equal(dial.origin, 'https://dial.to');
    assert.equal(dial.searchParams.get('action'), `solana-action:${withQuery}`);
  });
});
