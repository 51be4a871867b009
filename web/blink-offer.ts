// Without a browser wallet the approval page still offers a way on: the override's Blink, which a
// phone wallet opens from a QR code or a solana-action: link, dial.to opens in any browser, and anyone
// can copy and send to the owner.
import qrcode from 'qrcode-generator';
import { dialToLink, solanaActionLink } from './blink-links.js';
import { h, svg } from './dom.js';

/** A QR code drawn as one SVG path (no markup strings, so the page's CSP needs no exception). */
function qrSvg(text: string): SVGSVGElement {
  const code = qrcode(0, 'M');
  code.addData(text);
  code.make();
  const count = code.getModuleCount();
  let d = '';
  for (let row = 0; row < count; row += 1) {
    for (let col = 0; col < count; col += 1) if (code.isDark(row, col)) d += `M${col + 4} ${row + 4}h1v1h-1z`;
  }
  const size = count + 8;
  return svg(
    'svg',
    {
      class: 'blink-qr',
      viewBox: `0 0 ${size} ${size}`,
      role: 'img',
      'aria-label': 'QR code of the Blink: scan it with a phone wallet',
      'data-testid': 'blink-qr',
      'shape-rendering': 'crispEdges',
    },
    svg('rect', { width: size, height: size, fill: '#fff' }),
    svg('path', { d, fill: '#000' }),
  );
}

function copyButton(text: string): HTMLButtonElement {
  const button = h('button', { type: 'button', class: 'button', 'data-testid': 'copy-blink' }, 'Copy link');
  button.addEventListener('click', () => {
    void navigator.clipboard?.writeText(text).then(
      () => {
        button.textContent = 'Copied';
      },
      () => {
        button.textContent = 'Copy failed: select the link above';
      },
    );
  });
  return button;
}

/** The Blink offered as a QR code, a solana-action: link, a dial.to link and a copy button. */
export function blinkOffer(blinkUrl: string): HTMLElement {
  const actionLink = solanaActionLink(blinkUrl);
  const open = h(
    'a',
    { class: 'button button-primary', 'data-testid': 'solana-action-link' },
    'Open in a wallet',
  );
  // Our own URL under the Actions scheme: set directly, as h() lets only http(s) links through.
  open.setAttribute('href', actionLink);
  return h(
    'div',
    { class: 'blink-offer', 'data-testid': 'blink-offer' },
    h(
      'p',
      {},
      'Approve from a wallet instead: this request is also a Blink. Scan the code with a phone wallet ' +
        '(Phantom, Solflare, Backpack), open it in a wallet on this device, or open it on dial.to.',
    ),
    h(
      'div',
      { class: 'blink-offer-body' },
      qrSvg(actionLink),
      h(
        'div',
        { class: 'blink-offer-links' },
        open,
        h(
          'a',
          {
            class: 'button',
            href: dialToLink(blinkUrl),
            target: '_blank',
            rel: 'noopener noreferrer',
            'data-testid': 'dial-to-link',
          },
          'Open on dial.to',
        ),
        copyButton(blinkUrl),
        h('code', { class: 'address', 'data-testid': 'blink-url' }, blinkUrl),
      ),
    ),
  );
}
