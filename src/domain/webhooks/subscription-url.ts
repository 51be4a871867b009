// Which URLs a subscription may deliver to: checked at creation; addresses are checked again at delivery.
import { isIP } from 'node:net';
import { validationError } from '../../errors.js';
import { refusalReason, unbracketHost } from './address-policy.js';

export const MAX_URL_LENGTH = 2048;
const EMAIL_ADDRESS =
  /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;

export interface UrlPolicy {
  allowPrivateUrls: boolean;
  /** E-mail delivery is offered only when an SMTP server is configured. */
  emailEnabled: boolean;
}

/** The URL as stored, or a VALIDATION_ERROR on `body.url` saying what is wrong. */
export function parseSubscriptionUrl(raw: string, policy: UrlPolicy): string {
  const fail = (message: string) => validationError([{ path: 'body.url', message }]);
  if (raw.length > MAX_URL_LENGTH) throw fail(`must be at most ${MAX_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw fail('must be an absolute URL');
  }
  if (url.protocol === 'mailto:') {
    if (!policy.emailEnabled) throw fail('mailto: URLs need e-mail delivery (SMTP_URL) to be configured');
    return `mailto:${parseMailto(url, fail)}`;
  }
  if (url.protocol === 'http:' && !policy.allowPrivateUrls) {
    throw fail('must use https:// (http:// only when private URLs are allowed)');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw fail('must be an https:// or mailto: URL');
  if (url.username !== '' || url.password !== '') throw fail('must not contain credentials');
  const host = unbracketHost(url.hostname).toLowerCase();
  if (host === '') throw fail('must name a host');
  // `localhost.` and `metadata.google.internal.` resolve like their dotless forms but slip past name lists.
  if (host.endsWith('.')) throw fail('must not end with a dot');
  if (isIP(host) === 0 && isMetadataName(host)) throw fail('must not name a cloud metadata endpoint');
  if (!policy.allowPrivateUrls && isIP(host) === 0 && isLocalName(host)) {
    throw fail('must name a public host');
  }
  const refused = isIP(host) === 0 ? null : refusalReason(host, policy.allowPrivateUrls);
  if (refused !== null) throw fail(`must not point at a non-public address (${refused})`);
  return url.toString();
}

const LOCAL_NAMES = new Set(['localhost', 'localhost.localdomain', 'localhost6', 'localhost6.localdomain6']);
const LOCAL_SUFFIXES = ['.localhost', '.localdomain', '.local', '.internal', '.home.arpa', '.lan'];
const METADATA_NAMES = new Set([
  'metadata',
  'metadata.google.internal',
  'instance-data',
  'instance-data.ec2.internal',
]);

/** Names that resolve on the host or inside a private network, never to a public receiver. */
function isLocalName(host: string): boolean {
  return (
    LOCAL_NAMES.has(host) ||
    host.startsWith('ip6-') ||
    !host.includes('.') ||
    LOCAL_SUFFIXES.some((suffix) => host.endsWith(suffix))
  );
}

function isMetadataName(host: string): boolean {
  return METADATA_NAMES.has(host);
}

function parseMailto(url: URL, fail: (message: string) => Error): string {
  if (url.search !== '' || url.hash !== '') throw fail('mailto: URLs take one address and no parameters');
  let address: string;
  try {
    address = decodeURIComponent(url.pathname);
  } catch {
    throw fail('mailto: address is malformed');
  }
  if (address.length > 254 || !EMAIL_ADDRESS.test(address))
    throw fail('mailto: needs one valid e-mail address');
  return address;
}

/** The recipient of a `mailto:` subscription, or null for an HTTP one. */
export function mailtoAddress(url: string): string | null {
  return url.startsWith('mailto:') ? url.slice('mailto:'.length) : null;
}
