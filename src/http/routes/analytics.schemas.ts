import { Type } from '@fastify/type-provider-typebox';
import { AnalyticsReport, RealtimeReport } from '../../domain/analytics/analytics-resource.js';
import { GROUP_BY } from '../../domain/analytics/periods.js';
import { Address, StringEnum } from '../../lib/json-schema.js';

/** The route responses (the domain's resource schemas). */
export { AnalyticsReport as AnalyticsResponse, RealtimeReport as RealtimeResponse };

const DateInput = (description: string) =>
  Type.String({
    minLength: 10,
    maxLength: 40,
    description: `${description}: YYYY-MM-DD (a UTC day) or an ISO 8601 timestamp`,
  });

export const AnalyticsQuery = Type.Object(
  {
    vault: Type.Optional(Address('only this vault (its address); omitted: every vault')),
    startDate: Type.Optional(DateInput('start of the range (a day starts at 00:00:00.000 UTC)')),
    endDate: Type.Optional(DateInput('end of the range (a day ends at 23:59:59.999 UTC); default now')),
    groupBy: Type.Optional(StringEnum(GROUP_BY, { description: 'bucket of spendingByPeriod (default day)' })),
  },
  { additionalProperties: false },
);

export const RealtimeQuery = Type.Object(
  { vault: Address('the vault address') },
  { additionalProperties: false },
);
