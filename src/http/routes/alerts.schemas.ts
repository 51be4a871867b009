import { Type } from '@fastify/type-provider-typebox';
import { ALERT_LIMITS } from '../../domain/alerts/alert-settings.js';

export { VaultParams as AlertSettingsParams } from './vaults.schemas.js';

const { thresholds, windowSeconds, maxTransfers, expiryWarningMinutes } = ALERT_LIMITS;

const Thresholds = Type.Array(Type.Integer({ minimum: thresholds.min, maximum: thresholds.max }), {
  maxItems: thresholds.count,
  description: 'percentages of the daily limit, distinct; [] turns budget alerts off',
});

const Velocity = Type.Union(
  [
    Type.Object(
      {
        windowSeconds: Type.Integer({ minimum: windowSeconds.min, maximum: windowSeconds.max }),
        maxTransfers: Type.Integer({ minimum: maxTransfers.min, maximum: maxTransfers.max }),
      },
      { additionalProperties: false },
    ),
    Type.Null(),
  ],
  { description: 'more attempts than maxTransfers within windowSeconds sends agent.velocity; null: off' },
);

const WarningMinutes = Type.Integer({
  minimum: expiryWarningMinutes.min,
  maximum: expiryWarningMinutes.max,
  description: 'override.expiring is sent when a pending override has at most this many minutes left',
});

export const AlertSettings = Type.Object(
  { budgetThresholds: Thresholds, velocity: Velocity, expiryWarningMinutes: WarningMinutes },
  { title: 'AlertSettings' },
);

export const UpdateAlertSettingsBody = Type.Object(
  {
    budgetThresholds: Type.Optional(Thresholds),
    velocity: Type.Optional(Velocity),
    expiryWarningMinutes: Type.Optional(WarningMinutes),
  },
  { title: 'UpdateAlertSettingsRequest', additionalProperties: false },
);
