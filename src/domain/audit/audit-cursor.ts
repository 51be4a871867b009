// The keyset cursor of audit listings: the last entry's time and id, opaque to clients.
import { validationError } from '../../errors.js';
import { isUuid } from '../../lib/uuid.js';

export interface AuditPosition {
  readonly at: Date;
  readonly id: string;
}

export function encodeAuditCursor(position: { at: Date | string; id: string }): string {
  const at = typeof position.at === 'string' ? position.at : position.at.toISOString();
  return Buffer.from(`${at}|${position.id}`, 'utf8').toString('base64url');
}

/** The position a cursor names; a VALIDATION_ERROR on `query.<field>` when it is not one of ours. */
export function parseAuditCursor(cursor: string, field: string): AuditPosition {
  const [at, id, ...rest] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  const time = new Date(at ?? '');
  if (rest.length > 0 || id === undefined || !isUuid(id) || Number.isNaN(time.getTime())) {
    throw validationError([{ path: `query.${field}`, message: 'must be a cursor this API returned' }]);
  }
  return { at: time, id };
}
