// The Blink of an approval page and the links that open it (the Actions URL scheme, dial.to).

/** The Blink (Solana Action URL) of the override this approval page shows: same vault, nonce, transfer. */
export function blinkUrlOf(location: { pathname: string; search: string; origin: string }): string {
  const [, , vault = '', nonce = ''] = location.pathname.split('/');
  const url = new URL(`/api/actions/${vault}/${nonce}`, location.origin);
  const transfer = new URLSearchParams(location.search).get('transfer');
  if (transfer !== null) url.searchParams.set('transfer', transfer);
  return url.href;
}

/** The Actions specification's URL scheme: the Action URL, encoded when it has a query. */
export const solanaActionLink = (blinkUrl: string) =>
  `solana-action:${new URL(blinkUrl).search === '' ? blinkUrl : encodeURIComponent(blinkUrl)}`;

export const dialToLink = (blinkUrl: string) =>
  `https://dial.to/?action=${encodeURIComponent(`solana-action:${blinkUrl}`)}`;

/** The approval page (same origin) of a Blink URL `…/api/actions/{vault}/{nonce}[?transfer=…]`. */
export function approvalPathOf(blinkUrl: string): string | null {
  const url = new URL(blinkUrl, 'http://host.invalid');
  const match = /^\/api\/actions\/([^/]+)\/([0-9]+)$/.exec(url.pathname);
  return match === null ? null : `/overrides/${match[1]}/${match[2]}${url.search}`;
}

/** A link of the service's own (an override's approvalUrl) as a path on this host. */
export function pathOf(url: string): string {
  const parsed = new URL(url, 'http://host.invalid');
  return `${parsed.pathname}${parsed.search}`;
}
