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
